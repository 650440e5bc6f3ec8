package fakellm

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/internal/readfile"
)

// Override is a parsed replay.override.json: authored changes to the derived
// scripts of a scenario. Its JSON shape is an object keyed by session — a
// log's file name (session.jsonl, session.<n>.jsonl) or its session id —
// whose values either replace the script or patch entries at indexes
// (0-based, in the order of the derived script):
//
//	{
//	  "session.jsonl":   {"patch": {"2": {"kind": "throw", "code": "RATE_LIMIT", "message": "slow down"}}},
//	  "session.1.jsonl": {"replace": [{"kind": "hang", "chunks": []}]}
//	}
//
// A patched entry keeps the turn and the step of the entry it replaces
// where it gives none of its own (0), so the path check still applies to
// it, and likewise its call number (Entry.Call), which the driver's
// messages name it by. A replacing script's entries are authored calls,
// none of the log's: the driver numbers them by their position, whatever
// call they give (a copy of derive's output gives one).
type Override struct {
	Path     string                     // the sidecar's path, named in errors
	Sessions map[string]SessionOverride // by log file name or session id
}

// SessionOverride changes one session's script. Exactly one of Replace
// (non-nil, possibly empty) and Patch is set.
type SessionOverride struct {
	Replace []Entry
	Patch   map[int]Entry
}

// ReadOverride reads and validates the sidecar at path. The file is opened
// read-only. A missing file is an error wrapping fs.ErrNotExist.
func ReadOverride(path string) (*Override, error) {
	data, err := readfile.Read(path)
	if err != nil {
		return nil, fmt.Errorf("fakellm: %w: %w; the sidecar must be a file this user can read: restore it from version control, fix its permissions, or remove it", ErrBadOverride, err)
	}
	return ParseOverride(data, path)
}

// ParseOverride parses and validates a sidecar; name is used in errors.
// Unknown keys, unknown entry kinds, malformed entries and a member
// repeated in any object are errors naming the file and the place in it.
func ParseOverride(data []byte, name string) (*Override, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("fakellm: %s: %w: %s", name, ErrBadOverride, fmt.Sprintf(format, args...))
	}
	top, err := objectMembers(data)
	if err != nil {
		return nil, bad("want a JSON object keyed by session log file name: %v", err)
	}
	// encoding/json would keep the last of a repeated member: a second
	// override of the same session or call would drop the first unsaid.
	if repeats := jsonscan.Repeated(data, nil); len(repeats) > 0 {
		return nil, bad("%s", strings.Join(repeats, "; "))
	}
	o := &Override{Path: name, Sessions: map[string]SessionOverride{}}
	for _, key := range slices.Sorted(maps.Keys(top)) {
		so, err := parseSessionOverride(top[key])
		if err != nil {
			return nil, bad("%q: %v", key, err)
		}
		o.Sessions[key] = so
	}
	return o, nil
}

func parseSessionOverride(raw json.RawMessage) (SessionOverride, error) {
	var so SessionOverride
	members, err := objectMembers(raw)
	if err != nil {
		return so, fmt.Errorf(`want {"replace": [...]} or {"patch": {...}}: %v`, err)
	}
	for _, k := range slices.Sorted(maps.Keys(members)) {
		switch k {
		case "replace":
			var entries []Entry
			if err := json.Unmarshal(members[k], &entries); err != nil {
				return so, fmt.Errorf("replace: %w", err)
			}
			so.Replace = append([]Entry{}, entries...)
		case "patch":
			p, err := parsePatch(members[k])
			if err != nil {
				return so, err
			}
			so.Patch = p
		default:
			return so, fmt.Errorf(`unknown key %q (want "replace" or "patch")`, k)
		}
	}
	switch {
	case so.Replace != nil && so.Patch != nil:
		return so, errors.New(`has both "replace" and "patch"; use one`)
	case so.Replace == nil && so.Patch == nil:
		return so, errors.New(`has neither "replace" nor "patch"`)
	}
	return so, nil
}

func parsePatch(raw json.RawMessage) (map[int]Entry, error) {
	byIndex, err := objectMembers(raw)
	if err != nil {
		return nil, fmt.Errorf(`patch: want an object keyed by entry index ("0", "1", ...): %v`, err)
	}
	out := map[int]Entry{}
	for _, k := range slices.Sorted(maps.Keys(byIndex)) {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || strconv.Itoa(i) != k {
			return nil, fmt.Errorf("patch: key %q is not an entry index (0, 1, ...)", k)
		}
		var e Entry
		if err := e.UnmarshalJSON(byIndex[k]); err != nil { // the sidecar is valid JSON: no need to check it again
			return nil, fmt.Errorf("patch %q: %w", k, err)
		}
		out[i] = e
	}
	return out, nil
}

// objectMembers is json.Unmarshal of raw into a map[string]json.RawMessage
// (a repeated member's last value wins; null is a nil map), splitting a
// valid object with one scan instead of decoding it — jsonscan.Object
// accepts exactly the objects encoding/json does (FuzzObject) — the
// values aliasing raw. Anything else gets that call's error.
func objectMembers(raw []byte) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if jsonscan.Object(raw, func(key []byte, esc bool, val []byte) error {
		m[jsonscan.Key(key, esc)] = val
		return nil
	}) == nil {
		return m, nil
	}
	m = nil
	err := json.Unmarshal(raw, &m)
	return m, err
}

// apply changes the scripts in place. Every key must name a script, and
// every patch index must exist in it.
func (o *Override) apply(scripts []*Script) error {
	for _, key := range slices.Sorted(maps.Keys(o.Sessions)) {
		s := findScript(scripts, key)
		if s == nil {
			return fmt.Errorf("fakellm: %s: %w: %q names no log of the scenario (logs: %s)", o.Path, ErrBadOverride, key, scriptNames(scripts))
		}
		so := o.Sessions[key]
		if so.Replace != nil {
			s.Entries = slices.Clone(so.Replace)
			s.asked = nil // the override's calls, none recorded
			for i := range s.Entries {
				s.Entries[i].Call = 0 // nor numbered in the log, whatever call they were copied from
			}
			continue
		}
		entries := slices.Clone(s.Entries)
		for _, i := range slices.Sorted(maps.Keys(so.Patch)) {
			if i >= len(entries) {
				return fmt.Errorf("fakellm: %s: %w: %q: patch index %d is out of range: %s; use \"replace\" to add calls",
					o.Path, ErrBadOverride, key, i, indexRange(len(entries)))
			}
			e := so.Patch[i]
			if e.Turn == 0 && e.Step == 0 {
				e.Attempt = entries[i].Attempt
			}
			if e.Turn == 0 {
				e.Turn = entries[i].Turn
			}
			if e.Step == 0 {
				e.Step = entries[i].Step
			}
			if e.Call == 0 {
				e.Call = entries[i].Call
			}
			entries[i] = e
		}
		s.Entries = entries
	}
	return nil
}

func indexRange(n int) string {
	switch n {
	case 0:
		return "the session has no recorded calls"
	case 1:
		return "the session has 1 recorded call (index 0)"
	}
	return fmt.Sprintf("the session has %d recorded calls (indexes 0-%d)", n, n-1)
}

func findScript(scripts []*Script, key string) *Script {
	for _, s := range scripts {
		if baseName(s) == key || s.Header.ID == key {
			return s
		}
	}
	return nil
}

func scriptNames(scripts []*Script) string {
	names := make([]string, len(scripts))
	for i, s := range scripts {
		names[i] = baseName(s)
	}
	return strings.Join(names, ", ")
}
