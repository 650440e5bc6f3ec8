package tree

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/session"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
)

// matcher is a matcher over the whole tree. judge says whether the tree
// satisfies it and describes what the tree holds in a phrase that follows
// "but" in a failure and in a negated failure alike.
type matcher struct {
	name    string // the constructor, for errors
	want    string // "root's call call_f to have forked a session"
	wantNot string // "root's call call_f not to have forked a session"
	judge   func(v *view) (ok bool, found string, err error)
	extra   func(v *view) string // more to show after the tree, or nil
}

func (m *matcher) Match(actual any) (bool, error) {
	v, err := viewOf(actual, m.name)
	if err != nil {
		return false, err
	}
	ok, _, err := m.judge(v)
	return ok, err
}

func (m *matcher) message(actual any, want string) string {
	v, err := viewOf(actual, m.name)
	if err != nil {
		return err.Error()
	}
	_, found, err := m.judge(v)
	if err != nil {
		found = err.Error()
	}
	s := fmt.Sprintf("expected %s\nbut %s\n\n%s", want, found, v.render())
	if m.extra != nil {
		s += "\n\n" + m.extra(v)
	}
	return s
}

func (m *matcher) FailureMessage(actual any) string { return m.message(actual, m.want) }

func (m *matcher) NegatedFailureMessage(actual any) string { return m.message(actual, m.wantNot) }

// Spawned succeeds when the session at parentPath made the tool call
// callID and that call created a spawn child. Paths are lineage paths:
// "root", "root/call_plan" (see session.LineageKeys), the same whatever
// session ids the runtime gave.
//
//	Expect(o).To(tree.Spawned("root", "call_alpha"))
func Spawned(parentPath, callID string) types.GomegaMatcher {
	return created(session.ModeSpawn, "Spawned", parentPath, callID)
}

// Forked succeeds when the session at parentPath made the tool call callID
// and that call created a fork child.
//
//	Expect(o).To(tree.Forked("root", "call_recall"))
func Forked(parentPath, callID string) types.GomegaMatcher {
	return created(session.ModeFork, "Forked", parentPath, callID)
}

func created(mode session.Mode, name, parentPath, callID string) types.GomegaMatcher {
	verb := pastTense(string(mode))
	return &matcher{
		name:    name,
		want:    fmt.Sprintf("%s's call %s to have %s a session", parentPath, callID, verb),
		wantNot: fmt.Sprintf("%s's call %s not to have %s a session", parentPath, callID, verb),
		judge: func(v *view) (bool, string, error) {
			parent := v.byPath[parentPath]
			if parent == nil {
				return false, v.missing(parentPath), nil
			}
			var made []string
			for _, n := range v.nodes {
				if n.parentPath != parentPath || n.log.Header.ParentCallID != callID {
					continue
				}
				if n.log.Header.Mode == mode {
					return true, fmt.Sprintf("it %s %s", verb, n.path), nil
				}
				made = append(made, fmt.Sprintf("%s %s", pastTense(n.mode()), n.path))
			}
			if len(made) > 0 {
				return false, "it " + strings.Join(made, " and "), nil
			}
			for _, c := range parent.calls {
				if c.ID == callID {
					return false, fmt.Sprintf("%s's call %s (%s) created no session", parentPath, callID, c.Name), nil
				}
			}
			// The call may be another session's: name it, as a spec
			// that skips a level (root for root/call_f1) expects.
			for _, n := range v.nodes {
				if n.log.Header.ParentCallID == callID {
					return false, fmt.Sprintf("%s made no call %s; %s did, and it %s %s", parentPath, callID, n.parentPath, pastTense(n.mode()), n.path), nil
				}
			}
			return false, fmt.Sprintf("%s made no call %s", parentPath, callID), nil
		},
	}
}

// InheritsTurns succeeds when the session at path inherited n completed
// turns of its parent: a fork child's seed. n is an int or a Gomega
// matcher of an int; a spawn child and a root inherit 0.
//
//	Expect(o).To(tree.InheritsTurns("root/call_recall", 1))
func InheritsTurns(path string, n any) types.GomegaMatcher {
	m, desc := countMatcher(n, "turn")
	return &matcher{
		name:    "InheritsTurns",
		want:    fmt.Sprintf("%s to inherit %s", path, desc),
		wantNot: fmt.Sprintf("%s not to inherit %s", path, desc),
		judge: func(v *view) (bool, string, error) {
			s := v.byPath[path]
			if s == nil {
				return false, v.missing(path), nil
			}
			ok, err := m.Match(s.turns)
			if err != nil {
				return false, "", fmt.Errorf("tree.InheritsTurns: %w", err)
			}
			return ok, fmt.Sprintf("%s (%s) inherits %s (seedLength %d)", path, s.mode(), english.Count(s.turns, "turn"), s.log.Header.SeedLength), nil
		},
	}
}

// ModelCalls succeeds when the session at path made n model calls of its
// own, as session.ModelCalls counts them (and inspect, check and the
// report show them): every attempt, retries and calls that failed or were
// cut short included. n is an int or a Gomega matcher of an int.
//
//	Expect(o).To(tree.ModelCalls("root/call_recall", 1))
//	Expect(o).To(tree.ModelCalls("root", BeNumerically("<=", 4)))
func ModelCalls(path string, n any) types.GomegaMatcher {
	m, desc := countMatcher(n, "model call")
	return &matcher{
		name:    "ModelCalls",
		want:    fmt.Sprintf("%s to make %s", path, desc),
		wantNot: fmt.Sprintf("%s not to make %s", path, desc),
		judge: func(v *view) (bool, string, error) {
			s := v.byPath[path]
			if s == nil {
				return false, v.missing(path), nil
			}
			ok, err := m.Match(s.modelCalls)
			if err != nil {
				return false, "", fmt.Errorf("tree.ModelCalls: %w", err)
			}
			return ok, fmt.Sprintf("%s made %s", path, english.Count(s.modelCalls, "model call")), nil
		},
	}
}

// countMatcher turns an int or a matcher into a matcher and its
// description.
func countMatcher(n any, noun string) (types.GomegaMatcher, string) {
	switch n := n.(type) {
	case types.GomegaMatcher:
		return n, noun + "s matching " + describe(n)
	case int:
		return gomega.Equal(n), english.Count(n, noun)
	}
	return gomega.Equal(n), fmt.Sprintf("%v %ss (want an int or a Gomega matcher, got %T)", n, noun, n)
}

// ToolCalls succeeds when calls matches the tool calls of the session at
// path: its own tool/call events, in order, as []tree.ToolCall. Give it
// Exactly, InOrder, InAnyOrder or Including of Call matchers, or any
// Gomega matcher of a []tree.ToolCall (HaveLen(2), BeEmpty()).
//
//	Expect(o).To(tree.ToolCalls("root", tree.InOrder(
//		tree.Call("lookup", HaveKeyWithValue("key", "order:A-1042")),
//		tree.Call("subagent_spawn"),
//	)))
func ToolCalls(path string, calls types.GomegaMatcher) types.GomegaMatcher {
	desc := "to match " + describe(calls)
	seq, isSeq := calls.(*sequence)
	if isSeq {
		desc = "to be " + seq.describe()
	}
	return &matcher{
		name:    "ToolCalls",
		want:    fmt.Sprintf("the tool calls of %s %s", path, desc),
		wantNot: fmt.Sprintf("the tool calls of %s not %s", path, desc),
		judge: func(v *view) (bool, string, error) {
			s := v.byPath[path]
			if s == nil {
				return false, v.missing(path), nil
			}
			ok, err := calls.Match(s.calls)
			if err != nil {
				return false, "", err
			}
			found := fmt.Sprintf("%s made:%s", path, listCalls(s.calls))
			switch {
			case ok:
			case isSeq:
				found += "\n" + seq.problem(seq.want, s.calls)
			default:
				found += "\n" + calls.FailureMessage(s.calls)
			}
			return ok, found, nil
		},
	}
}

// pastTense says how a child was created: spawned, forked, or created
// when its log does not say.
func pastTense(mode string) string {
	switch mode {
	case string(session.ModeSpawn):
		return "spawned"
	case string(session.ModeFork):
		return "forked"
	}
	return "created"
}

// scenarioPriceHint is what package budget tells to add to scenario.json
// for a model without a price; the model is its first group.
var scenarioPriceHint = regexp.MustCompile(`add it to scenario\.json: "prices": \{("(?:[^"\\]|\\.)*"): \{"input": \.\.\., "output": \.\.\.\}\}`)

// WithinBudget succeeds when the tree's recorded usage is within l (see
// budget.Limit): tokens per tree or per session, cost, growth over a
// baseline. Without l.Prices it prices with the scenario's prices when
// given an Outcome or a Fixture. The failure lists every bound exceeded
// and the usage of each session.
//
//	Expect(o).To(tree.WithinBudget(budget.Limit{Tokens: 2000, SessionTokens: 800}))
func WithinBudget(l budget.Limit) types.GomegaMatcher {
	limit := func(v *view) budget.Limit {
		own := l // a copy: the matcher may judge several trees
		if own.Prices == nil {
			own.Prices = v.prices
		}
		return own
	}
	usage := func(v *view) (*budget.Usage, error) {
		logs := make([]*session.Log, len(v.nodes))
		for i, n := range v.nodes {
			logs[i] = n.log
		}
		return budget.Of(logs)
	}
	return &matcher{
		name:    "WithinBudget",
		want:    "the tree to be within its budget",
		wantNot: "the tree to exceed its budget",
		judge: func(v *view) (bool, string, error) {
			u, err := usage(v)
			if err != nil {
				return false, "", err
			}
			if err := u.Check(limit(v)); err != nil {
				msg := strings.ReplaceAll(strings.TrimPrefix(err.Error(), "budget: "), "\nbudget: ", "\n  ")
				if l.Prices != nil {
					// The prices are the spec's own, which replace
					// scenario.json's: a model they lack goes there.
					msg = scenarioPriceHint.ReplaceAllString(msg, `add it to the budget.Limit.Prices given to WithinBudget (they replace scenario.json's): budget.Prices{$1: {Input: ..., Output: ...}}`)
				}
				return false, "it does not:\n  " + msg, nil
			}
			return true, fmt.Sprintf("it is: %s", u.Tokens), nil
		},
		extra: func(v *view) string {
			u, err := usage(v)
			if err != nil {
				return ""
			}
			return "usage per session:\n  " + strings.Join(u.Table(limit(v).Prices), "\n  ")
		},
	}
}
