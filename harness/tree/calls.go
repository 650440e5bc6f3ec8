package tree

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
)

// Call matches one tool call by its name and, optionally, its arguments:
// each args matcher must match the arguments decoded to a map[string]any
// (any Gomega matcher that takes a map: HaveKeyWithValue, HaveKey, Equal,
// SatisfyAll, ...). JSON numbers decode to float64, so write
// HaveKeyWithValue("a", 2.0) or HaveKeyWithValue("a", BeNumerically("==", 2)).
//
//	tree.Call("lookup", HaveKeyWithValue("key", "release"))
func Call(name string, args ...types.GomegaMatcher) types.GomegaMatcher {
	return &callMatcher{name: name, args: args}
}

type callMatcher struct {
	name string
	args []types.GomegaMatcher
}

// String describes the wanted call: `lookup(HaveKeyWithValue(Key: "key", Value: "release"))`.
func (m *callMatcher) String() string {
	if len(m.args) == 0 {
		return m.name
	}
	parts := make([]string, len(m.args))
	for i, a := range m.args {
		parts[i] = describe(a)
	}
	return m.name + "(" + strings.Join(parts, ", ") + ")"
}

func toolCall(actual any) (ToolCall, error) {
	switch c := actual.(type) {
	case ToolCall:
		return c, nil
	case *ToolCall:
		if c != nil {
			return *c, nil
		}
	}
	return ToolCall{}, fmt.Errorf("tree.Call expects a tree.ToolCall, got %T", actual)
}

func (m *callMatcher) Match(actual any) (bool, error) {
	c, err := toolCall(actual)
	if err != nil || c.Name != m.name {
		return false, err
	}
	for _, a := range m.args {
		ok, err := a.Match(c.Args)
		if err != nil {
			return false, fmt.Errorf("tree.Call(%q): matching the arguments of %s: %w", m.name, c, err)
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// FailureMessage says why the call is not the wanted one: another tool, or
// the first arguments matcher that fails, with its own message.
func (m *callMatcher) FailureMessage(actual any) string {
	c, err := toolCall(actual)
	if err != nil {
		return err.Error()
	}
	if c.Name != m.name {
		return fmt.Sprintf("%s calls %s, not %s", c, c.Name, m.name)
	}
	for _, a := range m.args {
		if ok, err := a.Match(c.Args); err != nil || !ok {
			return fmt.Sprintf("the arguments of %s do not match:\n%s", c, a.FailureMessage(c.Args))
		}
	}
	return fmt.Sprintf("%s matches %s", c, m)
}

func (m *callMatcher) NegatedFailureMessage(actual any) string {
	c, _ := toolCall(actual)
	return fmt.Sprintf("expected %s not to match %s", c, m)
}

// Exactly matches a session's tool calls when there are as many as the
// matchers and each matches the call at its position.
func Exactly(calls ...types.GomegaMatcher) types.GomegaMatcher {
	return &sequence{kind: "exactly these, in this order", want: calls, match: gomega.HaveExactElements, problem: exactlyProblem}
}

// InOrder matches when the matchers match calls in their order, other
// calls allowed before, between and after them (a subsequence).
func InOrder(calls ...types.GomegaMatcher) types.GomegaMatcher {
	return &sequence{kind: "these, in this order, others allowed between", want: calls, problem: inOrderProblem}
}

// InAnyOrder matches when every call is matched by one matcher and every
// matcher by one call, in any order.
func InAnyOrder(calls ...types.GomegaMatcher) types.GomegaMatcher {
	return &sequence{kind: "exactly these, in any order", want: calls, match: gomega.ConsistOf, problem: pairingProblem(true)}
}

// Including matches when each matcher matches a call of its own, in any
// order, other calls allowed (a subset).
func Including(calls ...types.GomegaMatcher) types.GomegaMatcher {
	return &sequence{kind: "including these, in any order", want: calls, match: gomega.ContainElements, problem: pairingProblem(false)}
}

func asAny(ms []types.GomegaMatcher) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

// sequence matches the list of a session's tool calls.
type sequence struct {
	kind string
	want []types.GomegaMatcher
	// match builds Gomega's list matcher of the wanted calls, anew for
	// each match since those matchers keep state; nil: the greedy
	// subsequence of InOrder.
	match   func(elements ...any) types.GomegaMatcher
	problem func(want []types.GomegaMatcher, calls []ToolCall) string
}

func callsOf(actual any) ([]ToolCall, error) {
	calls, ok := actual.([]ToolCall)
	if !ok {
		return nil, fmt.Errorf("tree: the tool call matchers expect a []tree.ToolCall (use tree.ToolCalls(path, ...) on an outcome), got %T", actual)
	}
	return calls, nil
}

func (s *sequence) Match(actual any) (bool, error) {
	calls, err := callsOf(actual)
	if err != nil {
		return false, err
	}
	if s.match == nil {
		_, missed, err := subsequence(s.want, calls)
		return missed < 0, err
	}
	return s.match(asAny(s.want)...).Match(calls)
}

// describe lists the wanted calls, numbered.
func (s *sequence) describe() string {
	var b strings.Builder
	b.WriteString(s.kind + ":")
	if len(s.want) == 0 {
		b.WriteString(" none")
	}
	for i, m := range s.want {
		fmt.Fprintf(&b, "\n    %d. %s", i+1, describe(m))
	}
	return b.String()
}

func (s *sequence) FailureMessage(actual any) string {
	calls, err := callsOf(actual)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("expected tool calls %s\nbut the calls are:%s\n%s", s.describe(), listCalls(calls), s.problem(s.want, calls))
}

func (s *sequence) NegatedFailureMessage(actual any) string {
	calls, _ := callsOf(actual)
	return fmt.Sprintf("expected tool calls other than %s\nbut the calls are:%s", s.describe(), listCalls(calls))
}

func listCalls(calls []ToolCall) string {
	if len(calls) == 0 {
		return " none"
	}
	var b strings.Builder
	for i, c := range calls {
		fmt.Fprintf(&b, "\n    %d. %s", i+1, c)
	}
	return b.String()
}

// matches runs m on c, an error counting as no match.
func matches(m types.GomegaMatcher, c ToolCall) bool {
	ok, err := m.Match(c)
	return err == nil && ok
}

func exactlyProblem(want []types.GomegaMatcher, calls []ToolCall) string {
	for i := range min(len(want), len(calls)) {
		if !matches(want[i], calls[i]) {
			return fmt.Sprintf("call %d does not match wanted call %d: %s", i+1, i+1, indent(want[i].FailureMessage(calls[i])))
		}
	}
	if len(calls) > len(want) {
		return fmt.Sprintf("%s made, %d wanted: call %d, %s, is one too many", english.Count(len(calls), "call"), len(want), len(want)+1, calls[len(want)])
	}
	return fmt.Sprintf("%s made, %d wanted: wanted call %d, %s, is missing", english.Count(len(calls), "call"), len(want), len(calls)+1, describe(want[len(calls)]))
}

// subsequence matches want against calls greedily, each matcher at the
// earliest call after the previous match (which finds a subsequence when
// there is one). It returns the calls matched and the first matcher left
// unmatched, -1 when every one matched.
func subsequence(want []types.GomegaMatcher, calls []ToolCall) (at []int, missed int, err error) {
	next := 0
	for i, m := range want {
		found := false
		for ; next < len(calls) && !found; next++ {
			ok, err := m.Match(calls[next])
			if err != nil {
				return at, i, err
			}
			if ok {
				at, found = append(at, next), true
			}
		}
		if !found {
			return at, i, nil
		}
	}
	return at, -1, nil
}

func inOrderProblem(want []types.GomegaMatcher, calls []ToolCall) string {
	at, missed, err := subsequence(want, calls)
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	switch {
	case missed == 1:
		fmt.Fprintf(&b, "wanted call 1 matches call %d; ", at[0]+1)
	case missed > 1:
		nums := make([]string, len(at))
		for i, a := range at {
			nums[i] = fmt.Sprint(a + 1)
		}
		fmt.Fprintf(&b, "wanted calls 1-%d match calls %s; ", missed, strings.Join(nums, ", "))
	}
	after := 0
	if missed > 0 {
		after = at[len(at)-1] + 1
	}
	fmt.Fprintf(&b, "wanted call %d, %s, matches no call", missed+1, describe(want[missed]))
	if missed > 0 {
		fmt.Fprintf(&b, " after call %d", after)
	}
	for i, c := range calls {
		if matches(want[missed], c) {
			fmt.Fprintf(&b, " (call %d matches it, too early)", i+1)
			return b.String()
		}
	}
	return b.String() + closest(want[missed], calls[after:], after)
}

// closest shows why the first call of the wanted tool (from offset on) is
// not the wanted one, when there is such a call.
func closest(m types.GomegaMatcher, calls []ToolCall, offset int) string {
	cm, ok := m.(*callMatcher)
	if !ok {
		return ""
	}
	for i, c := range calls {
		if c.Name == cm.name {
			return fmt.Sprintf("; the nearest, call %d: %s", offset+i+1, indent(cm.FailureMessage(c)))
		}
	}
	return ""
}

// pairingProblem explains an any-order mismatch: the wanted calls no call
// matches, and (for InAnyOrder) the calls no wanted call matches.
func pairingProblem(all bool) func([]types.GomegaMatcher, []ToolCall) string {
	return func(want []types.GomegaMatcher, calls []ToolCall) string {
		var problems []string
		for i, m := range want {
			hit := false
			for _, c := range calls {
				hit = hit || matches(m, c)
			}
			if !hit {
				problems = append(problems, fmt.Sprintf("wanted call %d, %s, matches no call%s", i+1, describe(m), closest(m, calls, 0)))
			}
		}
		for i, c := range calls {
			hit := false
			for _, m := range want {
				hit = hit || matches(m, c)
			}
			if all && !hit {
				problems = append(problems, fmt.Sprintf("call %d, %s, matches no wanted call", i+1, c))
			}
		}
		if len(problems) == 0 && all && len(want) != len(calls) {
			problems = append(problems, fmt.Sprintf("%s made, %d wanted", english.Count(len(calls), "call"), len(want)))
		}
		if len(problems) == 0 {
			problems = append(problems, "every wanted call matches some call, but not each a call of its own: two wanted calls match the same one")
		}
		return strings.Join(problems, "\n")
	}
}

// describe names a matcher for a message: a Call by its tool and argument
// matchers, a Stringer by its String, any other matcher by its type and
// settings ("HaveKeyWithValue(Key: "key", Value: "release")").
func describe(m any) string {
	if s, ok := m.(fmt.Stringer); ok {
		return s.String()
	}
	v := reflect.ValueOf(m)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return fmt.Sprintf("%#v", m)
	}
	var parts []string
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() || v.Field(i).IsZero() {
			continue
		}
		parts = append(parts, f.Name+": "+describeValue(v.Field(i).Interface()))
	}
	return strings.TrimSuffix(v.Type().Name(), "Matcher") + "(" + strings.Join(parts, ", ") + ")"
}

func describeValue(x any) string {
	switch x := x.(type) {
	case types.GomegaMatcher:
		return describe(x)
	case []types.GomegaMatcher:
		parts := make([]string, len(x))
		for i, m := range x {
			parts[i] = describe(m)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprintf("%v", x)
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n      ") }
