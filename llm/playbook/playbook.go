// Package playbook is an llm.Driver that plays authored model turns, so a
// scenario can be recorded with no key and no network. playbook.json gives,
// per session, the model's answers in order; the driver streams each one in
// realistic chunks (llm.StreamMessage), exactly as a live model's would be
// recorded.
//
// Sessions are keyed by lineage: "root" is the root session; a child is keyed
// by the id of the tool call that created it. Tool call ids are authored, so
// they are unique within a playbook and a child's key never depends on
// timing.
package playbook

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/internal/termtext"
)

// Playbook is playbook.json.
type Playbook struct {
	Doc      []string           `json:"_doc,omitempty"` // free text for authors
	Sessions map[string][]*Turn `json:"sessions"`
}

// Turn is one authored model answer: one stream() call.
type Turn struct {
	Note      string     `json:"note,omitempty"` // free text for authors
	Reasoning string     `json:"reasoning,omitempty"`
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	Usage     *Usage     `json:"usage,omitempty"`  // default: estimated from the text
	Finish    string     `json:"finish,omitempty"` // stop, tool-calls or max-tokens; default from the content
	Error     *Error     `json:"error,omitempty"`  // stream the text, then fail with this error
	Hang      bool       `json:"hang,omitempty"`   // stream the text, then wait until the call is cancelled
}

// ToolCall is an authored tool call.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"` // a JSON object
}

// Usage is authored token accounting.
type Usage struct {
	InputTokens     int  `json:"inputTokens"`
	OutputTokens    int  `json:"outputTokens"`
	CacheReadTokens *int `json:"cacheReadTokens,omitempty"`
	ReasoningTokens *int `json:"reasoningTokens,omitempty"`
}

// Error is an authored model failure.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// RootKey is the playbook key of the root session.
const RootKey = "root"

// ErrInvalid is wrapped by every validation error.
var ErrInvalid = errors.New("invalid playbook")

// Load reads and validates a playbook file.
func Load(path string) (*Playbook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("playbook: %w", err)
	}
	return Parse(b, path)
}

// Parse decodes and validates a playbook; name is used in errors. Every
// problem is reported at once, each naming its field, such as
// sessions.root[1].toolCalls[0].arguments; a member repeated in any object
// is one, naming its line and the first's.
func Parse(b []byte, name string) (*Playbook, error) {
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return nil, fmt.Errorf("playbook: %s: %w: %v", name, ErrInvalid, located(b, err))
	}
	if _, ok := tree.(map[string]any); !ok {
		return nil, fmt.Errorf("playbook: %s: %w: want a JSON object with a \"sessions\" member, found %s", name, ErrInvalid, jsonKind(tree))
	}
	// encoding/json keeps the last of a repeated member, so a second
	// "root" or "text" would drop the first unsaid.
	problems := jsonscan.Repeated(b, nil)
	repeats := len(problems)
	// encoding/json names a mistyped member without its map keys and
	// indexes ("sessions.text"), so the shape check finds the exact paths.
	checkShape(tree, reflect.TypeFor[Playbook](), "", memberOrder(b), &problems)
	var pb Playbook
	var typ *json.UnmarshalTypeError
	if err := json.Unmarshal(b, &pb); errors.As(err, &typ) {
		// A mistyped member leaves a half-decoded turn; checking its
		// content would only add noise.
		if len(problems) == repeats { // a number too large for an int
			problems = append(problems, err.Error())
		}
		slices.Sort(problems)
		return nil, fmt.Errorf("playbook: %s: %w: %s", name, ErrInvalid, strings.Join(problems, "; "))
	} else if err != nil {
		return nil, fmt.Errorf("playbook: %s: %w: %v", name, ErrInvalid, err)
	}
	if err := pb.check(problems); err != nil {
		return nil, fmt.Errorf("playbook: %s: %w", name, err)
	}
	return &pb, nil
}

// located adds a line number to encoding/json's syntax errors.
func located(b []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) && syn.Offset <= 1 && bytes.HasPrefix(b, []byte("\uFEFF")) { // invisible in an editor
		return errors.New("line 1: the file starts with a UTF-8 byte order mark, which an editor added; remove it")
	}
	if errors.As(err, &syn) {
		line := 1 + bytes.Count(b[:min(max(int(syn.Offset), 0), len(b))], []byte{'\n'})
		return fmt.Errorf("line %d: %w", line, err)
	}
	return err
}

// checkShape adds a problem for every member of the decoded JSON v that the
// Go type t has no field for, and for every value of the wrong JSON type,
// naming each by its path. Member names match the way encoding/json matches
// them (ignoring case); null is accepted anywhere, as encoding/json does.
func checkShape(v any, t reflect.Type, path string, order map[string][]string, problems *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil {
		return
	}
	want := ""
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			want = "an object"
			break
		}
		checkMembers(obj, t, path, order, problems)
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			want = "an object"
			break
		}
		for key, elem := range obj {
			checkShape(elem, t.Elem(), path+"."+key, order, problems)
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // json.RawMessage holds anything
			return
		}
		arr, ok := v.([]any)
		if !ok {
			want = "an array"
			break
		}
		for i, elem := range arr {
			checkShape(elem, t.Elem(), fmt.Sprintf("%s[%d]", path, i), order, problems)
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			want = "a string"
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			want = "true or false"
		}
	case reflect.Int:
		if f, ok := v.(float64); !ok || f != math.Trunc(f) {
			want = "an integer"
		}
	}
	if want != "" {
		*problems = append(*problems, fmt.Sprintf("%s: want %s, found %s", path, want, jsonKind(v)))
	}
}

// checkMembers checks the members of a JSON object decoded into struct t:
// each names a field, at most one each. It reads them in the file's order
// (order[path]), so a field given twice is named as the file gives it.
func checkMembers(obj map[string]any, t reflect.Type, path string, order map[string][]string, problems *[]string) {
	fields := jsonFields(t)
	given := make([]string, len(fields)) // the name that gave each field
	keys := order[path]
	if len(keys) != len(obj) { // not walked: any order is one
		keys = slices.Sorted(maps.Keys(obj))
	}
	for _, key := range keys {
		at := strings.TrimPrefix(path+"."+key, ".")
		i := slices.IndexFunc(fields, func(f jsonField) bool { return strings.EqualFold(f.name, key) })
		if i < 0 {
			names := make([]string, len(fields))
			for j, f := range fields {
				names[j] = f.name
			}
			*problems = append(*problems, fmt.Sprintf("%s: unknown field; known fields here: %s", at, strings.Join(names, ", ")))
			continue
		}
		if given[i] != "" { // encoding/json matches names in any case, and keeps the last
			*problems = append(*problems, fmt.Sprintf("%s: given twice, as %q and as %q (names match in any case); keep one of them",
				strings.TrimPrefix(path+"."+fields[i].name, "."), given[i], key))
			continue
		}
		given[i] = key
		checkShape(obj[key], fields[i].typ, at, order, problems)
	}
}

// memberOrder returns the names of each object's members in b, a valid
// JSON text, in the file's order, by the object's path as checkShape
// names it; a name given twice exactly is listed once.
func memberOrder(b []byte) map[string][]string {
	order := map[string][]string{}
	var walk func(v []byte, path string)
	walk = func(v []byte, path string) {
		switch {
		case len(v) == 0:
		case v[0] == '{':
			_ = jsonscan.Members(v, func(key []byte, escaped bool, val []byte) error {
				k := jsonscan.Key(key, escaped)
				if !slices.Contains(order[path], k) {
					order[path] = append(order[path], k)
				}
				walk(val, strings.TrimPrefix(path+"."+k, "."))
				return nil
			})
		case v[0] == '[':
			i := 0
			_ = jsonscan.Elements(v, func(e []byte) error {
				walk(e, fmt.Sprintf("%s[%d]", path, i))
				i++
				return nil
			})
		}
	}
	walk(bytes.TrimSpace(b), "")
	return order
}

// jsonKind names the JSON type of a decoded value, with the value when it
// is short.
func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "the string " + abbreviate(json.RawMessage(strconv.Quote(x)))
	case float64:
		return "the number " + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return "the boolean " + strconv.FormatBool(x)
	case []any:
		return "an array"
	}
	return "an object"
}

type jsonField struct {
	name string
	typ  reflect.Type
}

// jsonFields lists the JSON member names of a struct type's fields.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name, f.Type})
	}
	return out
}

// Validate checks the playbook and names the field of every problem.
func (pb *Playbook) Validate() error { return pb.check(nil) }

// check validates the playbook and reports its problems together with the
// ones the caller found already, sorted.
func (pb *Playbook) check(problems []string) error {
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if len(pb.Sessions[RootKey]) == 0 {
		add("sessions.root: the root session has no model turns")
	}
	callIDs := map[string]string{}
	for _, key := range slices.Sorted(maps.Keys(pb.Sessions)) {
		for i, t := range pb.Sessions[key] {
			at := fmt.Sprintf("sessions.%s[%d]", cmp.Or(key, `""`), i)
			if t == nil {
				add("%s: null turn", at)
				continue
			}
			if t.Text == "" && t.Reasoning == "" && len(t.ToolCalls) == 0 && t.Error == nil && !t.Hang {
				add("%s: a turn needs text, reasoning, toolCalls, error or hang", at)
			}
			switch t.Finish {
			case "", "stop", "tool-calls", "max-tokens":
			default:
				add("%s.finish: %q; use stop, tool-calls or max-tokens (or error for a failure)", at, t.Finish)
			}
			if t.Error != nil && t.Hang {
				add("%s: error and hang exclude each other", at)
			}
			if t.Error != nil && t.Error.Code == "" {
				add("%s.error.code: empty; give a code such as SERVER or RATE_LIMIT", at)
			}
			checkCalls(at, t.ToolCalls, callIDs, add)
			checkUsage(at, t.Usage, add)
		}
	}
	for key := range pb.Sessions {
		if key == RootKey {
			continue
		}
		if key == "" {
			add(`sessions: a session key is empty (""); key the root session's turns "root" and a child session's by the id of the tool call that creates it`)
			continue
		}
		if _, ok := callIDs[key]; !ok {
			add("sessions.%s: no tool call in the playbook has id %q; a child session is keyed by the id of the call that creates it", key, key)
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(problems, "; "))
	}
	return nil
}

// checkCalls checks the tool calls of the turn at, recording each call's id
// in callIDs (id -> where) to find duplicates across the playbook.
func checkCalls(at string, calls []ToolCall, callIDs map[string]string, add func(string, ...any)) {
	for j, c := range calls {
		cat := fmt.Sprintf("%s.toolCalls[%d]", at, j)
		if c.ID == "" || c.Name == "" {
			add("%s: id and name are required", cat)
		}
		if c.ID == RootKey {
			add("%s.id: %q is the root session's key; give the call another id", cat, c.ID)
		}
		if prev, dup := callIDs[c.ID]; dup && c.ID != "" {
			add("%s.id: %q is also used at %s; tool call ids must be unique in a playbook (children are keyed by them)", cat, c.ID, prev)
		}
		callIDs[c.ID] = cat
		// null decodes into a map without error, so test for a
		// non-nil map: absent arguments mean {}, null is a mistake.
		var obj map[string]json.RawMessage
		if len(c.Arguments) > 0 && (json.Unmarshal(c.Arguments, &obj) != nil || obj == nil) {
			add("%s.arguments: must be a JSON object, found %s", cat, abbreviate(c.Arguments))
		}
	}
}

// maxTokens bounds an authored token count: far beyond any model call.
const maxTokens = 1_000_000_000

// checkUsage refuses an authored token count below 0 or above maxTokens,
// which a recording would otherwise write into the fixture's usage.
func checkUsage(at string, u *Usage, add func(string, ...any)) {
	if u == nil {
		return
	}
	for _, n := range []struct {
		name string
		v    *int
	}{{"inputTokens", &u.InputTokens}, {"outputTokens", &u.OutputTokens}, {"cacheReadTokens", u.CacheReadTokens}, {"reasoningTokens", u.ReasoningTokens}} {
		if n.v != nil && (*n.v < 0 || *n.v > maxTokens) {
			add("%s.usage.%s: %d; a token count is 0 to %d", at, n.name, *n.v, maxTokens)
		}
	}
}

// abbreviate shows a JSON value for an error, cut to a readable length
// with the mark a secret's redaction knows (termtext.Cut).
func abbreviate(raw json.RawMessage) string { return termtext.Cut(string(raw), 40) }

// FirstHang returns where the playbook's first hang answer is
// ("sessions.root[2]"), or "" when it has none.
func (pb *Playbook) FirstHang() string {
	for _, key := range slices.Sorted(maps.Keys(pb.Sessions)) {
		for i, t := range pb.Sessions[key] {
			if t != nil && t.Hang {
				return fmt.Sprintf("sessions.%s[%d]", key, i)
			}
		}
	}
	return ""
}
