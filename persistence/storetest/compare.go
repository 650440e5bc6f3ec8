package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/agentsnap/agentsnap/internal/textdiff"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// sameLog compares two logs by their JSONL encodings — equal encodings are
// equal logs — and shows the lines in which they differ.
func sameLog(what string, got, want *session.Log) error {
	return sameLines(what, Encoded(got), Encoded(want))
}

// sameLines compares two JSONL texts and shows how the store's differs
// from the one wanted, as every agentsnap diff does: "-" lines are the
// wanted side, "+" lines the store's.
func sameLines(what, got, want string) error {
	if got == want {
		return nil
	}
	return fmt.Errorf("%s: %d lines, wanted %d (- wanted, + what the store gave):\n%s", what,
		strings.Count(got, "\n"), strings.Count(want, "\n"), strings.TrimSuffix(textdiff.Unified(want, got, 0), "\n"))
}

// matches reports whether err is target the way Gomega's MatchError
// compares error values: errors.Is, or deeply equal.
func matches(err, target error) bool {
	return err != nil && (errors.Is(err, target) || reflect.DeepEqual(err, target))
}

// wantErr checks that the call what failed with target.
func wantErr(what string, err, target error) error {
	switch {
	case err == nil:
		return fmt.Errorf("%s = nil, wanted an error matching %s", what, errName(target))
	case !matches(err, target):
		return fmt.Errorf("%s = %q, wanted an error matching %s (wrap it with %%w)", what, err, errName(target))
	}
	return nil
}

// succeed checks that the call what returned no error.
func succeed(what string, err error) error {
	if err != nil {
		return fmt.Errorf("%s = %w, wanted nil", what, err)
	}
	return nil
}

// mentions checks that the error of what says sub.
func mentions(what string, err error, sub, why string) error {
	if !strings.Contains(err.Error(), sub) {
		return fmt.Errorf("%s = %q, wanted an error that says %q (%s)", what, err, sub, why)
	}
	return nil
}

// errName names the sentinel errors the contract expects.
func errName(target error) string {
	for name, e := range map[string]error{
		"persistence.ErrUnknownSession": persistence.ErrUnknownSession, "persistence.ErrSessionExists": persistence.ErrSessionExists,
		"persistence.ErrOutOfOrder": persistence.ErrOutOfOrder, "persistence.ErrClosed": persistence.ErrClosed,
		"persistence.ErrBadSeed": persistence.ErrBadSeed, "persistence.ErrInvalid": persistence.ErrInvalid,
		"context.Canceled": context.Canceled,
	} {
		if e == target {
			return name
		}
	}
	return fmt.Sprintf("%q", target)
}

// headerDiff lists the fields in which got differs from want, or "" when
// they are deeply equal.
func headerDiff(got, want session.Header) string {
	var diffs []string
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		if !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			diffs = append(diffs, fmt.Sprintf("%s = %s, wanted %s", g.Type().Field(i).Name, show(g.Field(i).Interface()), show(w.Field(i).Interface())))
		}
	}
	return strings.Join(diffs, "; ")
}

// show formats a header field: raw JSON members as text.
func show(v any) string {
	if m, ok := v.(map[string]json.RawMessage); ok && m != nil {
		text := make(map[string]string, len(m))
		for k, raw := range m {
			text[k] = string(raw)
		}
		return fmt.Sprintf("%q", text)
	}
	return fmt.Sprintf("%#v", v)
}

// sameHeader checks that got equals want field for field.
func sameHeader(what string, got, want session.Header) error {
	if d := headerDiff(got, want); d != "" {
		return fmt.Errorf("%s: %s", what, d)
	}
	return nil
}

// jsonEqual reports whether a and b are the same JSON value, as Gomega's
// MatchJSON does: both valid, deeply equal once decoded.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// span describes a batch in a call: its seqs.
func span(events []session.Event) string {
	switch len(events) {
	case 0:
		if events == nil {
			return "nil"
		}
		return "[]"
	case 1:
		return fmt.Sprintf("[seq %d]", events[0].Seq)
	}
	return fmt.Sprintf("[%d events, seq %d..%d]", len(events), events[0].Seq, events[len(events)-1].Seq)
}

// headerDesc describes a header in a call: its id and seedLength.
func headerDesc(h session.Header) string {
	if h.SeedLength > 0 {
		return fmt.Sprintf("%q seedLength %d", h.ID, h.SeedLength)
	}
	return fmt.Sprintf("%q", h.ID)
}
