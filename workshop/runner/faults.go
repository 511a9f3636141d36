package runner

// faultKeys: the mistakes the live visualizer (v) shows only when the
// learner makes a fault happen, and how. A mistake not listed shows in the
// visualizer as it runs (the herd: each release wakes every waiter).
var faultKeys = map[string]string{
	// A waiter in the middle of the queue gives up: the one behind it sees
	// its watched node go and, without listing the queue again, takes the
	// lock while the holder still holds it.
	"04/no-relist": "in the visualizer (v): select a waiter in the middle of the queue (↑↓) and press k; when the server drops its node, the waiter behind it takes the lock while the holder still holds it",
}

// faultKey is what to do in the visualizer to see mistake id of chapter ch,
// "" if it shows by itself.
func faultKey(ch, id string) string { return faultKeys[ch+"/"+id] }
