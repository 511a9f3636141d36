package tui

import (
	"strings"

	"github.com/lockstep-zk/lockstep/visualizer/scene"
)

// A Scene is what a chapter hands the engine (visualizer/scene); the engine
// knows chapters only as the scenes visualizer/main.go gives it in Options.

// keysOf lists the scenes' keys, in the order given.
func keysOf(scenes []scene.Scene) []string {
	ks := make([]string, 0, len(scenes))
	for _, s := range scenes {
		ks = append(ks, s.Key)
	}
	return ks
}

// lookup finds a scene by key ("04", "4") or name ("04-sequential-lock").
func lookup(scenes []scene.Scene, s string) (scene.Scene, bool) {
	if len(s) == 1 {
		s = "0" + s
	}
	if len(s) > 2 {
		s = s[:2]
	}
	for _, sc := range scenes {
		if sc.Key == strings.ToLower(s) {
			return sc, true
		}
	}
	return scene.Scene{}, false
}
