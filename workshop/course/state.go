package course

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// StateFile is where the workshop keeps the learner's progress, in the
// clone (.gitignore lists it): the runner's list survives a restart, and the
// non-interactive check's --hint knows which mistake it is hinting at.
const StateFile = ".lockstep-workshop.json"

// ClassSecretsFile keeps, beside the state file, the secret each class
// name was taken with (mode 0600; .gitignore lists it): this laptop can
// come back to its name, and no other can.
const ClassSecretsFile = ".lockstep-class-secrets.json"

// ChapterState is what the workshop last saw of one chapter.
type ChapterState struct {
	Kind    Kind   `json:"kind"`
	Tier    Tier   `json:"tier"`
	Todo    string `json:"todo,omitempty"`
	Step    int    `json:"step,omitempty"`
	Test    string `json:"test,omitempty"`    // the first failing test
	Message string `json:"message,omitempty"` // its first message
	Mistake string `json:"mistake,omitempty"` // the hint table's id
	Hints   int    `json:"hints,omitempty"`   // how many hints of Mistake the runner shows
	// HintsCLI is how many the non-interactive --hint has printed: its
	// own count, so that the runner's h and --hint do not advance each other.
	HintsCLI int       `json:"hints_cli,omitempty"`
	At       time.Time `json:"at"`
	// Hash is the hash of the exercise files this verdict is about
	// (course.Hash): the verdict holds only while the files hash the same.
	Hash string `json:"hash,omitempty"`
	// FullSuite is how long the chapter's last full suite took, kept
	// across the lesson's runs: the runner shows it while the next one runs.
	FullSuite time.Duration `json:"full_suite,omitempty"`
}

// Holds says whether the verdict is about the files that hash to hash.
func (cs *ChapterState) Holds(hash string) bool { return cs != nil && cs.Hash != "" && cs.Hash == hash }

// State is the whole file.
type State struct {
	Lang string `json:"lang,omitempty"`
	// Name is the learner's name in a class (go run ./workshop -class …),
	// kept so that it is asked once; the secret that owns it is in
	// ClassSecretsFile.
	Name     string                   `json:"name,omitempty"`
	Chapters map[string]*ChapterState `json:"chapters"`
}

// LoadState reads root's state file; a missing file is an empty state.
func LoadState(root string) (*State, error) {
	s := &State{Chapters: map[string]*ChapterState{}}
	b, err := os.ReadFile(filepath.Join(root, StateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, s); err != nil {
		return &State{Chapters: map[string]*ChapterState{}}, err
	}
	if s.Chapters == nil {
		s.Chapters = map[string]*ChapterState{}
	}
	return s, nil
}

// Save writes the state file.
func (s *State) Save(root string) error {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return WriteState(root, b)
}

// WriteState writes a marshalled state (through a temporary file, so a
// crash never leaves half of it).
func WriteState(root string, b []byte) error {
	tmp := filepath.Join(root, StateFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(root, StateFile))
}

// Record stores a result for chapter ch. A new mistake starts its hints
// from the first stage; the same mistake keeps the stages already shown.
func (s *State) Record(ch string, r Result) *ChapterState {
	old := s.Chapters[ch]
	cs := &ChapterState{Kind: r.Kind, Tier: r.Tier, Todo: r.Todo, Step: r.Step, Message: r.First, At: time.Now(), Hash: r.Hash}
	if old != nil {
		cs.FullSuite = old.FullSuite
	}
	if r.Tier == Full {
		cs.FullSuite = r.Elapsed
	}
	if len(r.Failed) > 0 {
		cs.Test = r.Failed[0]
	}
	if r.Mistake != nil {
		cs.Mistake = r.Mistake.ID
		if old != nil && old.Mistake == cs.Mistake {
			cs.Hints, cs.HintsCLI = old.Hints, old.HintsCLI
		}
	}
	if r.Kind == Todo && old != nil && old.Kind == Todo && old.Todo == cs.Todo {
		cs.Hints, cs.HintsCLI = old.Hints, old.HintsCLI // the same step: keep the hints already shown
	}
	s.Chapters[ch] = cs
	return cs
}
