package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/internal/readfile"
	"github.com/agentsnap/agentsnap/session"
)

// File is the file name of scenario.json in a fixture folder (package
// fixture names the folder's other files).
const File = "scenario.json"

// Scenario is scenario.json.
//
// The agent member belongs to the runtime under test: it is kept as raw
// JSON, and each runtime reads its own settings from it (the reference
// runtime's are preset, system and tools: see the README). The
// members after it are read by runtimes that share their meaning.
type Scenario struct {
	Description string          `json:"description"`
	Prompts     []string        `json:"prompts"` // one user turn of the root each, in order
	Agent       json.RawMessage `json:"agent,omitempty"`
	MaxDepth    int             `json:"maxDepth,omitempty"`    // delegation depth limit; 0 means the runtime's default (2)
	TurnTimeout Duration        `json:"turnTimeout,omitempty"` // bounds each prompt's turn, e.g. "500ms"; 0 means none
	Serial      bool            `json:"serial,omitempty"`      // run subagent calls of a step one at a time
	MaxAttempts int             `json:"maxAttempts,omitempty"` // model call attempts per step (retries of retryable failures); 0 means 1
	Schedules   int             `json:"schedules,omitempty"`   // replay also under this many seeded schedules (judge.SearchSchedules); 0 means none
	Data        Data            `json:"data,omitempty"`        // facts the lookup tool answers from
	Prices      budget.Prices   `json:"prices,omitempty"`      // per model, per million tokens: what inspect and check --max-growth cost with
	Recorded    *Recorded       `json:"recorded,omitempty"`    // written by agentsnap record

	// Extra keeps members agentsnap does not know, so rewriting scenario.json
	// after a recording loses nothing an author added.
	Extra map[string]json.RawMessage `json:"-"`

	// Warnings lists what Parse accepted but looks like a mistake, such as
	// an unknown member whose name is close to a known one ("maxDeph").
	Warnings []string `json:"-"`
}

// Data is the lookup tool's table.
type Data map[string]string

// Recorded is the recording metadata.
type Recorded struct {
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model"`
	At       string `json:"at"`
	By       string `json:"by"`
	// Runtime names the runtime under test that recorded the scenario
	// ("reference" for agentsnap's own); a replay with another runtime is
	// refused with a message saying which one to use.
	Runtime string `json:"runtime,omitempty"`
	// Playbook is the digest of playbook.json when the recording came from
	// it, so a playbook edited since asks for a new recording.
	Playbook string `json:"playbook,omitempty"`
	// Lineage is "infer" when the wire layer told the agent's sessions
	// apart by what their calls sent (agentsnap serve --lineage=infer), so
	// its replay does the same.
	Lineage string `json:"lineage,omitempty"`
}

// Duration is a time.Duration written as a Go duration string ("500ms").
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf(`want a duration string such as "500ms"`)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf(`%q is not a duration such as "500ms"`, s)
	}
	*d = Duration(v)
	return nil
}

// ErrInvalid is wrapped by every validation error of Load.
var ErrInvalid = errors.New("invalid scenario")

// Load reads and validates dir/scenario.json.
func Load(dir string) (*Scenario, error) {
	path := filepath.Join(dir, File)
	b, err := readfile.Read(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("scenario: %s: no scenario.json; create one with: agentsnap new CATEGORY/NAME", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("scenario: %w; %s must be a file this user can read: restore it from version control, or fix its permissions", err, File)
	}
	return Parse(b, path)
}

// Parse decodes and validates a scenario.json text; path names it in errors.
// Every problem with a member names its line. Unknown top-level members are
// kept in Extra; unknown members inside agent or recorded are refused, since
// Save could not keep them.
func Parse(b []byte, path string) (*Scenario, error) {
	members, err := objectMembers(b)
	if err != nil {
		return nil, fmt.Errorf("scenario: %s: %w: %w", path, ErrInvalid, err)
	}
	var sc Scenario
	problems := duplicateMembers(b)
	valueLine := map[string]int{} // known member -> the line its value starts on
	var nearMisses []string       // unknown members close to a known one, for a refusal to name
	for _, m := range members {
		dst := sc.member(m.key)
		if dst == nil {
			if known := knownFold(m.key); known != "" {
				problems = append(problems, fmt.Sprintf("line %d: %q: member names are case-sensitive; write %q", lineAt(b, m.off), m.key, known))
				continue
			}
			if near := Closest(m.key, memberNames); near != "" {
				sc.Warnings = append(sc.Warnings, fmt.Sprintf("%s:%d: unknown member %q is kept but not used; did you mean %q?", path, lineAt(b, m.off), m.key, near))
				nearMisses = append(nearMisses, fmt.Sprintf("line %d: unknown member %q; did you mean %q?", lineAt(b, m.off), m.key, near))
			}
			if sc.Extra == nil {
				sc.Extra = map[string]json.RawMessage{}
			}
			sc.Extra[m.key] = m.raw
			continue
		}
		valueLine[m.key] = lineAt(b, m.off)
		if err := decodeMember(m, dst); err != nil {
			problems = append(problems, memberError(b, m, err))
		}
	}
	if len(problems) == 0 {
		for _, p := range sc.problems() {
			if line, ok := valueLine[p.member]; ok {
				p.text = fmt.Sprintf("line %d: %s", line, p.text)
			}
			problems = append(problems, p.text)
		}
	}
	if len(problems) > 0 {
		// A refusal drops the warnings, so it names the likely cause itself:
		// "prompt" for "prompts" is the commonest reason "prompts" is empty.
		problems = append(problems, nearMisses...)
		return nil, fmt.Errorf("scenario: %s: %w: %s", path, ErrInvalid, strings.Join(problems, "; "))
	}
	return &sc, nil
}

// memberNames lists the members Parse decodes, in the order Encode writes
// them.
var memberNames = []string{"description", "prompts", "agent", "maxDepth", "turnTimeout", "serial", "maxAttempts", "schedules", "data", "prices", "recorded"}

// member returns where the known member key decodes to, or nil.
func (sc *Scenario) member(key string) any {
	switch key {
	case "description":
		return &sc.Description
	case "prompts":
		return &sc.Prompts
	case "agent":
		return &sc.Agent
	case "maxDepth":
		return &sc.MaxDepth
	case "turnTimeout":
		return &sc.TurnTimeout
	case "serial":
		return &sc.Serial
	case "maxAttempts":
		return &sc.MaxAttempts
	case "schedules":
		return &sc.Schedules
	case "data":
		return &sc.Data
	case "prices":
		return &sc.Prices
	case "recorded":
		return &sc.Recorded
	}
	return nil
}

// knownFold returns the known member name that key matches ignoring case.
func knownFold(key string) string {
	for _, k := range memberNames {
		if strings.EqualFold(k, key) {
			return k
		}
	}
	return ""
}

// jsonMember is one top-level member of a JSON object; off is where its
// value starts.
type jsonMember struct {
	key string
	raw json.RawMessage
	off int64
}

// objectMembers splits a JSON object into its members, keeping where each
// value starts so errors can name its line.
func objectMembers(b []byte) ([]jsonMember, error) {
	// The common case, a valid object, in one scan (jsonscan.Object accepts
	// exactly the objects encoding/json does: FuzzObject); anything else is
	// told by decoding it.
	var out []jsonMember
	err := jsonscan.Object(b, func(key []byte, esc bool, val []byte) error {
		// val is b[i:j], so cap tells where in b it starts.
		out = append(out, jsonMember{key: jsonscan.Key(key, esc), raw: slices.Clone(val), off: int64(cap(b) - cap(val))})
		return nil
	})
	if err == nil {
		return out, nil
	}
	var top any
	if err := json.Unmarshal(b, &top); err != nil {
		var syn *json.SyntaxError
		if bytes.HasPrefix(b, []byte("\uFEFF")) { // invisible in an editor: say what the byte is
			return nil, fmt.Errorf("line 1: the file starts with a UTF-8 byte order mark, which an editor added; remove it")
		}
		if len(bytes.TrimSpace(b)) == 0 { // "unexpected end of JSON input" would not say it is empty
			return nil, fmt.Errorf("line 1: the file is empty; want a JSON object such as {\"prompts\": [\"...\"]} (go tool agentsnap new CATEGORY/NAME scaffolds one), or restore it from version control")
		}
		if errors.As(err, &syn) {
			return nil, fmt.Errorf("line %d: %w", lineAt(b, syn.Offset), err)
		}
		return nil, err
	}
	if _, ok := top.(map[string]any); !ok {
		return nil, fmt.Errorf("line 1: want a JSON object such as {\"prompts\": [\"...\"]}, found %s", jsonKind(top))
	}
	// The text is a valid object, so the token walk cannot fail.
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	out = nil
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, jsonMember{key: t.(string), raw: raw, off: dec.InputOffset() - int64(len(raw))})
	}
	return out, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "an object"
}

// decodeMember decodes one member into dst. Objects that map to structs
// (recorded) must not carry members Save would drop.
func decodeMember(m jsonMember, dst any) error {
	if decodeFast(m.raw, dst) {
		return nil
	}
	t := reflect.TypeOf(dst).Elem()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct {
		var obj map[string]json.RawMessage
		if json.Unmarshal(m.raw, &obj) == nil {
			var names []string
			for f := range t.Fields() {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				names = append(names, name)
			}
			for _, key := range slices.Sorted(maps.Keys(obj)) {
				if !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, key) }) {
					return fmt.Errorf("unknown member %q; known members: %s", key, strings.Join(names, ", "))
				}
			}
		}
	}
	return json.Unmarshal(m.raw, dst)
}

// memberError names the member, and the line, of a decoding error.
func memberError(b []byte, m jsonMember, err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		field := m.key
		if typ.Field != "" {
			field += "." + typ.Field
		}
		return fmt.Sprintf("line %d: %s: want %s, found JSON %s", lineAt(b, m.off+typ.Offset), field, typ.Type, typ.Value)
	}
	return fmt.Sprintf("line %d: %s: %v", lineAt(b, m.off), m.key, err)
}

func lineAt(b []byte, off int64) int {
	return 1 + bytes.Count(b[:min(max(int(off), 0), len(b))], []byte{'\n'})
}

// Bounds of scenario.json's numbers: Parse and Validate refuse a value
// outside them. Each is far beyond what a test asks and still cheap to
// run, so a typo or a mutated file cannot ask for a replay that exhausts
// memory or never ends.
const (
	// DepthLimit bounds maxDepth: a header's delegationDepth may not
	// exceed session.MaxDelegationDepth, so no deeper tree can be read.
	DepthLimit = session.MaxDelegationDepth
	// AttemptsLimit bounds maxAttempts, the model call attempts per step.
	AttemptsLimit = 100
	// SchedulesLimit bounds schedules (and check --schedules,
	// AGENTSNAP_SCHEDULES): each schedule is one whole replay.
	SchedulesLimit = 10_000
	// TurnTimeoutLimit bounds turnTimeout.
	TurnTimeoutLimit = time.Hour
	// PriceLimit bounds each price of prices, per million tokens.
	PriceLimit = 1e6
)

// Validate checks what a run needs and reports every problem at once.
func (sc *Scenario) Validate() error {
	ps := sc.problems()
	if len(ps) == 0 {
		return nil
	}
	texts := make([]string, len(ps))
	for i, p := range ps {
		texts[i] = p.text
	}
	return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(texts, "; "))
}

// problem is one finding of Validate: the member it is about, so Parse can
// name its line, and what is wrong.
type problem struct{ member, text string }

// problems lists what Validate refuses, in a fixed order.
func (sc *Scenario) problems() []problem {
	var out []problem
	add := func(member, format string, args ...any) {
		out = append(out, problem{member, fmt.Sprintf(format, args...)})
	}
	if len(sc.Prompts) == 0 {
		add("prompts", `"prompts" is empty; give at least one user turn`)
	}
	for i, p := range sc.Prompts {
		if strings.TrimSpace(p) == "" {
			add("prompts", "prompts[%d] is empty", i)
		}
	}
	if len(sc.Agent) > 0 && !isObject(sc.Agent) {
		add("agent", `"agent" must be a JSON object (the runtime's settings)`)
	}
	if sc.MaxDepth < 0 || sc.MaxDepth > DepthLimit {
		add("maxDepth", "maxDepth is %d; use 1 to %d (0 means the default, 2)", sc.MaxDepth, DepthLimit)
	}
	if sc.MaxAttempts < 0 || sc.MaxAttempts > AttemptsLimit {
		add("maxAttempts", "maxAttempts is %d; use 1 to %d (0 means 1)", sc.MaxAttempts, AttemptsLimit)
	}
	if sc.Schedules < 0 || sc.Schedules > SchedulesLimit {
		add("schedules", "schedules is %d; use 1 to %d (0 means no schedule search)", sc.Schedules, SchedulesLimit)
	}
	if d := time.Duration(sc.TurnTimeout); d < 0 || d > TurnTimeoutLimit {
		add("turnTimeout", "turnTimeout is %s; use at most %s (0 means none)", d, TurnTimeoutLimit)
	}
	for _, model := range slices.Sorted(maps.Keys(sc.Prices)) {
		p := sc.Prices[model]
		for _, x := range []struct {
			name string
			v    float64
		}{{"input", p.Input}, {"output", p.Output}, {"cacheRead", p.CacheRead}} {
			if !(x.v >= 0 && x.v <= PriceLimit) {
				add("prices", "prices.%s.%s is %v; use 0 to %v per million tokens", model, x.name, x.v, PriceLimit)
			}
		}
	}
	return out
}

// Save writes dir/scenario.json atomically, indented, members in a fixed
// order with unknown ones kept.
func (sc *Scenario) Save(dir string) error {
	b, err := sc.Encode()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, File), b, 0o644)
}

// Encode returns the scenario.json text: the known members in a fixed
// order, then the unknown ones of Extra sorted by name.
func (sc *Scenario) Encode() ([]byte, error) {
	type plain Scenario
	known, err := session.MarshalData((*plain)(sc))
	if err != nil {
		return nil, err
	}
	buf := bytes.TrimSuffix(known, []byte("}"))
	for _, k := range slices.Sorted(maps.Keys(sc.Extra)) {
		if knownFold(k) != "" {
			continue // a known member is written from its field
		}
		key, _ := session.MarshalData(k)
		val, err := session.MarshalData(sc.Extra[k])
		if err != nil {
			return nil, fmt.Errorf("scenario: member %q: %w", k, err)
		}
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		buf = append(append(append(buf, key...), ':'), val...)
	}
	buf = append(buf, '}')
	var out bytes.Buffer
	if err := json.Indent(&out, buf, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// isObject reports whether raw is one JSON object, checking it without
// decoding it.
func isObject(raw json.RawMessage) bool {
	return jsonscan.Object(raw, func([]byte, bool, []byte) error { return nil }) == nil
}

// WithRecorded returns the scenario.json text src with its recorded member
// set to rec: only that member changes (it is added at the end when
// absent), so the author's layout and every other byte survive a
// recording.
func WithRecorded(src []byte, rec *Recorded) ([]byte, error) {
	compact, err := session.MarshalData(rec)
	if err != nil {
		return nil, err
	}
	var val bytes.Buffer
	if err := json.Indent(&val, compact, "  ", "  "); err != nil {
		return nil, err
	}
	members, err := objectMembers(src)
	if err != nil {
		return nil, err
	}
	if dups := duplicateMembers(src); len(dups) > 0 {
		return nil, fmt.Errorf("scenario: %w: %s", ErrInvalid, strings.Join(dups, "; "))
	}
	for _, m := range members {
		if m.key == "recorded" {
			end := int(m.off) + len(m.raw)
			return slices.Concat(src[:m.off], val.Bytes(), src[end:]), nil
		}
	}
	closing := bytes.LastIndexByte(src, '}')
	body := bytes.TrimRight(src[:closing], " \t\r\n")
	sep := ",\n"
	if len(members) == 0 {
		sep = "\n"
	}
	return slices.Concat(body, []byte(sep+`  "recorded": `), val.Bytes(), []byte("\n"), src[closing:]), nil
}
