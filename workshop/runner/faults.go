package runner

// faultKeys: the mistakes the live visualizer (v) shows only when the
// learner makes a fault happen, and how, in English and in Chinese. A
// mistake not listed shows in the visualizer as it runs (the herd: each
// release wakes every waiter).
var faultKeys = map[string]map[string]string{
	// A waiter in the middle of the queue dies: the one behind it sees its
	// watched node go and, without listing the queue again, takes the lock
	// while the holder still holds it. Tried (the hint's patch, 6 workers):
	// "✗ 2 held at once" 2 s after k. Long holds and a short session make
	// the node go while there is still a holder ahead of it.
	"04/no-relist": {
		"en": "see it live: scripts/exercise 04 --visual -- -hold 6s -session 2s, ↓ to a waiter two places behind the holder, k: when the server drops its node, the waiter behind it holds too (✗ 2 held at once)",
		"zh": "现场看一看：运行 scripts/exercise 04 --visual -- -hold 6s -session 2s，用 ↓ 选中排在持有者后面第二位的等待者，再按 k。服务器删掉这个等待者的节点后，排在它后面的那个也拿到了锁（✗ 同时有 2 个持有者）",
	},
}

// faultKey is what to do in the visualizer to see mistake id of chapter ch,
// in lang, "" if it shows by itself.
func faultKey(ch, id, lang string) string {
	k := faultKeys[ch+"/"+id]
	if s, ok := k[lang]; ok {
		return s
	}
	return k["en"]
}
