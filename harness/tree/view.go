package tree

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/internal/columns"
	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/session"
)

// ToolCall is one tool call of a session, as the matchers see it: the
// session's own tool/call events, in order (a fork child's inherited seed
// holds its parent's calls, not its own).
type ToolCall struct {
	ID   string
	Name string
	// Args holds the arguments decoded as JSON: objects are map[string]any,
	// numbers float64. nil when the arguments are not a JSON object.
	Args map[string]any
	// Raw is the arguments as recorded, a JSON text.
	Raw        string
	Turn, Step int
}

// String returns "lookup {"key":"release"} (call_1)".
func (c ToolCall) String() string {
	return fmt.Sprintf("%s %s (%s)", c.Name, c.Raw, c.ID)
}

// node is one session of the tree under test.
type node struct {
	path       string // lineage key
	log        *session.Log
	parentPath string // "" for the root
	calls      []ToolCall
	modelCalls int // its own model calls (session.ModelCalls)
	turns      int // completed turns inherited (turn/start events in the seed)
}

// view is the tree the matchers look at, in lineage order.
type view struct {
	nodes  []*node
	byPath map[string]*node
	prices budget.Prices // the scenario's, when known
}

// viewOf builds the tree of a *harness.Outcome (its replayed logs), a
// *fixture.Fixture (its recorded logs) or a []*session.Log.
func viewOf(actual any, matcher string) (*view, error) {
	var logs []*session.Log
	var prices budget.Prices
	switch a := actual.(type) {
	case *harness.Outcome:
		if a == nil {
			return nil, fmt.Errorf("tree.%s: got a nil *harness.Outcome", matcher)
		}
		logs = a.Replayed
		if a.Fixture != nil && a.Fixture.Scenario != nil {
			prices = a.Fixture.Scenario.Prices
		}
	case *fixture.Fixture:
		if a == nil {
			return nil, fmt.Errorf("tree.%s: got a nil *fixture.Fixture", matcher)
		}
		logs = a.Logs
		if a.Scenario != nil {
			prices = a.Scenario.Prices
		}
	case []*session.Log:
		logs = a
	default:
		return nil, fmt.Errorf("tree.%s expects a *harness.Outcome, a *fixture.Fixture or a []*session.Log, got %T", matcher, actual)
	}
	if len(logs) == 0 {
		return nil, fmt.Errorf("tree.%s: there are no session logs (did the replay run at all?)", matcher)
	}
	ordered, err := session.LineageOrder(logs)
	if err != nil {
		return nil, fmt.Errorf("tree.%s: %w", matcher, err)
	}
	keys := session.LineageKeys(ordered)
	v := &view{byPath: map[string]*node{}, prices: prices}
	for _, l := range ordered {
		n := &node{path: keys[l.Header.ID], log: l}
		if p := l.Header.ParentSession; p != "" {
			n.parentPath = keys[p]
		}
		n.scan()
		v.nodes = append(v.nodes, n)
		v.byPath[n.path] = n
	}
	return v, nil
}

// scan reads the session's tool calls, model calls and inherited turns.
func (n *node) scan() {
	for _, e := range n.log.Seed() {
		if e.Type == session.TypeTurnStart {
			n.turns++
		}
	}
	n.modelCalls = n.log.CountModelCalls()
	own := n.log.Own()
	for i := range own {
		e := &own[i]
		switch e.Type {
		case session.TypeToolCall:
			var d session.ToolCallData
			if e.Decode(&d) != nil {
				continue
			}
			c := ToolCall{ID: d.CallID, Name: d.Name, Raw: d.Arguments, Turn: d.Turn, Step: d.Step}
			var args map[string]any
			if json.Unmarshal([]byte(d.Arguments), &args) == nil {
				c.Args = args
			}
			n.calls = append(n.calls, c)
		}
	}
}

// mode says how a session was created: root, spawn, fork, or child when
// its log does not say (dsh logs).
func (n *node) mode() string {
	h := &n.log.Header
	switch {
	case !h.IsChild():
		return "root"
	case h.Mode != "":
		return string(h.Mode)
	}
	return "child"
}

// render lays the tree out, one line per session: path, how it was
// created, depth, seedLength, model calls and its tool calls.
func (v *view) render() string {
	rows := make([][]string, 0, len(v.nodes))
	for _, n := range v.nodes {
		h := &n.log.Header
		how := "root"
		if h.IsChild() {
			how = n.mode() + " via " + orNone(h.ParentCallID)
		}
		calls := "no tool calls"
		if len(n.calls) > 0 {
			names := make([]string, len(n.calls))
			for i, c := range n.calls {
				names[i] = c.Name + "(" + c.ID + ")"
			}
			calls = "tools " + strings.Join(names, " ")
		}
		rows = append(rows, []string{
			"  " + n.path, how, "depth " + strconv.Itoa(h.DelegationDepth),
			"seed " + strconv.Itoa(h.SeedLength), english.Count(n.modelCalls, "model call"), calls,
		})
	}
	return "the agent tree (path, created, depth, seedLength, model calls, tool calls):\n" + strings.Join(columns.Align(rows), "\n")
}

// paths lists the sessions' paths, for "no such session" messages.
func (v *view) paths() string {
	out := make([]string, len(v.nodes))
	for i, n := range v.nodes {
		out[i] = n.path
	}
	return strings.Join(out, ", ")
}

// missing is the message for a path the tree does not hold.
func (v *view) missing(path string) string {
	return fmt.Sprintf("there is no session %s; the sessions are %s", path, v.paths())
}

func orNone(s string) string {
	if s == "" {
		return "an unrecorded call"
	}
	return s
}
