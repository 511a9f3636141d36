package tui

// State is what a worker is doing, as the visualizer shows it.
type State int

const (
	Idle       State = iota // between rounds, no lock, no node
	Requesting              // talking to ZooKeeper to get the lock
	Waiting                 // blocked behind another node, a watch set
	Holding                 // holds the lock
	CutOff                  // its link to ZooKeeper is cut (an expiry in progress)
	Expired                 // its session expired: everything it had is gone
	Crashed                 // killed: its session will time out on the server
	Stopped                 // removed by the user, closed cleanly
)

var stateNames = [...]string{Idle: "idle", Requesting: "requesting", Waiting: "waiting", Holding: "holding",
	CutOff: "cut off", Expired: "session expired", Crashed: "crashed", Stopped: "stopped"}

func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// alive says whether the worker still takes part in the lock.
func (s State) alive() bool { return s != Crashed && s != Stopped }

// label is how the chapter's words name state s in the state column.
func (m Model) label(s State) string {
	switch s {
	case Idle:
		return m.words.Idle
	case Requesting:
		return m.words.Requesting
	case Waiting:
		return m.words.Waiting
	case Holding:
		return m.words.Holding
	case Expired:
		return m.say().Expired
	case CutOff:
		return m.say().CutOff
	case Crashed:
		return m.say().Crashed
	case Stopped:
		return m.say().Stopped
	}
	return s.String()
}
