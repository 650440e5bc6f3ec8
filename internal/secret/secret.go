// Package secret is the one home of the credentials a recording must never
// contain: a [Set] of named values gathered from every place a live client
// puts one — the key variables, the base URL's query and user info, the
// credential headers it sends — and the exact redaction and search of those
// values in every encoding they travel in (raw, JSON-escaped, URL-escaped).
//
// Values are matched exactly, never guessed with patterns: a pattern that
// misses a key's last characters prints half of it. A value shorter than
// [MinLen] bytes is not treated as a secret — it would match ordinary text
// — and the set remembers where it came from ([Set.Short]) so callers can
// say so.
package secret

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// MinLen is the length in bytes of the shortest value treated as a secret.
const MinLen = 8

// Redacted replaces a secret in redacted text.
const Redacted = "[REDACTED]"

// Set is a set of secret values, each named by its source: an environment
// variable ("OPENAI_API_KEY") or a phrase that completes "the value of ..."
// ("the x-goog-api-key header", "the key= query parameter of
// AGENTSNAP_BASE_URL"). The first source a value is added under names it.
//
// A Set is safe for concurrent use: a live driver adds the credentials it
// sends while a recording searches for them. The methods of a nil *Set
// treat it as empty.
type Set struct {
	mu     sync.Mutex
	names  map[string]string // raw value -> source
	order  []string          // raw values, in the order added
	forms  []form            // every encoding of every value, longest first
	short  [][2]string       // source and value of each value too short
	empty  []string          // sources given with no value (AddAll)
	maxLen int               // the longest raw value
	repl   *strings.Replacer // built on first use after a change
}

// form is one encoding of a value, as it may appear in text.
type form struct {
	text   string
	source string
}

// New returns an empty set.
func New() *Set { return &Set{names: map[string]string{}} }

// Add adds value under source and reports whether it was added: an empty
// value, one already in the set, and one shorter than MinLen (remembered in
// Short) are not.
func (s *Set) Add(source, value string) bool {
	if s == nil || value == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.names[value]; ok {
		return false
	}
	if ordinary(value) {
		return false
	}
	if len(value) < MinLen {
		if !slices.ContainsFunc(s.short, func(kv [2]string) bool { return kv[0] == source }) {
			s.short = append(s.short, [2]string{source, value})
		}
		return false
	}
	s.names[value] = source
	s.order = append(s.order, value)
	s.maxLen = max(s.maxLen, len(value))
	// A new slice: readers may be searching the old one.
	forms := slices.Clone(s.forms)
	seen := map[string]bool{}
	for _, f := range encodings(value) {
		if len(f) >= MinLen && !seen[f] {
			seen[f] = true
			forms = append(forms, form{f, source})
		}
	}
	// Longest first, so a value holding another is found and replaced
	// whole; the sort is stable, so the first source keeps a tie.
	slices.SortStableFunc(forms, func(a, b form) int { return len(b.text) - len(a.text) })
	s.forms, s.repl = forms, nil
	return true
}

// ordinary reports whether value is a word agentsnap's own messages print
// — its name, which every command they end with starts with — given as a
// dummy key ("agentsnap", as examples/langchaingo's clients send): hiding
// it would hide nothing and cut those commands ("go tool [REDACTED] review").
func ordinary(value string) bool { return strings.EqualFold(value, "agentsnap") }

// encodings returns the ways value is written in the text a recording and
// its messages hold: as it is, as a JSON string's content (the session
// log's escaping, encoding/json's with and without HTML escaping, and
// twice over, for JSON inside a JSON string such as tool arguments) and
// URL-escaped (query and path).
func encodings(value string) []string {
	out := []string{value}
	unquote := func(b []byte) string { return string(b[1 : len(b)-1]) }
	log := unquote(jsonscan.AppendString(nil, value))
	out = append(out, log, unquote(jsonscan.AppendStdString(nil, value)), unquote(jsonscan.AppendString(nil, log)))
	if b, err := json.Marshal(value); err == nil {
		out = append(out, unquote(b))
	}
	return append(out, url.QueryEscape(value), url.PathEscape(value))
}

// AddAll adds every value of m under its key, in the order of the keys. A
// key with an empty value names a secret its caller expected and did not
// get (a variable not set): it is remembered in Empty.
func (s *Set) AddAll(m map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] == "" && s != nil {
			s.mu.Lock()
			if !slices.Contains(s.empty, k) {
				s.empty = append(s.empty, k)
			}
			s.mu.Unlock()
			continue
		}
		s.Add(k, m[k])
	}
}

// Merge adds every value of o under its source, in the order o got them.
func (s *Set) Merge(o *Set) {
	if s == nil || o == nil || s == o {
		return
	}
	for _, kv := range o.pairs() {
		s.Add(kv[0], kv[1])
	}
}

func (s *Set) pairs() [][2]string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][2]string, len(s.order))
	for i, v := range s.order {
		out[i] = [2]string{s.names[v], v}
	}
	return out
}

// Values returns the set as a map from source to value, for handing the
// set to an API that takes a map: every value, the second and later of a
// source that names several under "SOURCE (2)", "SOURCE (3)", ... The
// values too short to be secrets are in it too, and the sources of Empty
// with "", so a set the map is added to (a recording's) remembers them in
// Short and Empty and can say so.
func (s *Set) Values() map[string]string {
	out := map[string]string{}
	for _, kv := range append(s.pairs(), s.shortPairs()...) {
		name := kv[0]
		for n := 2; ; n++ {
			if _, taken := out[name]; !taken {
				break
			}
			name = fmt.Sprintf("%s (%d)", kv[0], n)
		}
		out[name] = kv[1]
	}
	return out
}

// Len returns how many values the set holds.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.order)
}

// MaxLen returns the length of the longest value, 0 for an empty set: a
// value cut into pieces is found in a window of MaxLen-1 bytes before the
// latest piece.
func (s *Set) MaxLen() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxLen
}

// Short returns the sources whose value was not added for being shorter
// than MinLen, in the order they came.
func (s *Set) Short() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, kv := range s.short {
		out = append(out, kv[0])
	}
	return out
}

// shortPairs returns the sources of Short with their values, then those of
// Empty with "": what Values hands on besides the secrets.
func (s *Set) shortPairs() [][2]string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.short)
	for _, src := range s.empty {
		out = append(out, [2]string{src, ""})
	}
	return out
}

// Empty returns the sources AddAll was given with no value, in the order
// they came.
func (s *Set) Empty() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.empty)
}

// snapshot returns the forms and the replacer for them.
func (s *Set) snapshot() ([]form, *strings.Replacer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.forms) == 0 {
		return nil, nil
	}
	if s.repl == nil {
		pairs := make([]string, 0, 2*len(s.forms))
		for _, f := range s.forms {
			pairs = append(pairs, f.text, Redacted)
		}
		s.repl = strings.NewReplacer(pairs...)
	}
	return s.forms, s.repl
}

// Cut is the mark agentsnap's messages end a value they shorten with.
const Cut = "…"

// MinCut is the length in bytes of the shortest start of a value that
// Redact replaces before a Cut: a shorter one tells little, and would
// match ordinary text that a message cut.
const MinCut = 4

// Redact returns text with every form of every value replaced by Redacted,
// and the start of one that a message cut (MinCut bytes or more, right
// before a Cut) too: a difference shows a value's first runes only, and
// may end in the middle of a key.
func (s *Set) Redact(text string) string {
	if s == nil {
		return text
	}
	forms, r := s.snapshot()
	if r == nil {
		return text
	}
	return redactCuts(r.Replace(text), forms)
}

// redactCuts replaces, before each Cut in text, the longest end of the
// text before it that starts a form of a value.
func redactCuts(text string, forms []form) string {
	if !strings.Contains(text, Cut) {
		return text
	}
	var b strings.Builder
	for {
		head, rest, found := strings.Cut(text, Cut)
		if !found {
			b.WriteString(head)
			return b.String()
		}
		n := 0
		for _, f := range forms {
			for k := min(len(f.text)-1, len(head)); k >= MinCut && k > n; k-- {
				if strings.HasSuffix(head, f.text[:k]) {
					n = k
					break
				}
			}
		}
		b.WriteString(head[:len(head)-n])
		if n > 0 {
			b.WriteString(Redacted)
		}
		b.WriteString(Cut)
		text = rest
	}
}

// Find returns the source of the value found earliest in b and where it
// starts; ok is false when b holds none.
func (s *Set) Find(b []byte) (source string, at int, ok bool) {
	if s == nil {
		return "", 0, false
	}
	forms, _ := s.snapshot()
	at = -1
	for _, f := range forms {
		if i := bytes.Index(b, []byte(f.text)); i >= 0 && (at < 0 || i < at) {
			source, at = f.source, i
		}
	}
	return source, at, at >= 0
}

// FindString is Find for a string.
func (s *Set) FindString(text string) (source string, at int, ok bool) {
	if s == nil {
		return "", 0, false
	}
	forms, _ := s.snapshot()
	at = -1
	for _, f := range forms {
		if i := strings.Index(text, f.text); i >= 0 && (at < 0 || i < at) {
			source, at = f.source, i
		}
	}
	return source, at, at >= 0
}

// Error returns err with the secrets redacted from its message, or err
// itself when its message holds none. errors.Is and errors.As see through
// the redaction to err.
func (s *Set) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := s.Redact(msg); red != msg {
		return &redactedError{msg: red, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Writer returns a writer that redacts every Write before passing it to w.
// Each Write is redacted on its own, so give it whole lines (as fmt.Fprintf
// and log handlers do). A nil w gives nil.
func (s *Set) Writer(w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	return &writer{s: s, w: w}
}

type writer struct {
	s *Set
	w io.Writer
}

func (w *writer) Write(p []byte) (int, error) {
	red := w.s.Redact(string(p))
	if _, err := io.WriteString(w.w, red); err != nil {
		return 0, err
	}
	return len(p), nil
}
