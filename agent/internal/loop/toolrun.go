package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// runTools records the step's tool calls, runs them and records their
// results in call order. Concurrent tools (subagents) run in parallel unless
// Config.Serial; the others run one after another in call order.
func (t *turnRun) runTools(ctx context.Context, calls []session.Part) error {
	s := t.s
	// Children read the parent's log from the store's point of view;
	// ToolCalls makes the calls durable before any child starts.
	if err := s.j.ToolCalls(ctx, calls); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	step := s.j.Step()
	results := make([]Result, len(calls))
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		tool, call, res, ok := t.prepare(step, c)
		if !ok {
			results[i] = res
			continue
		}
		// The step's last call runs on this goroutine even when it may run
		// beside the others: all that is left here is to wait for them,
		// so it overlaps with them as a goroutine of its own would, without
		// starting one (and growing its stack) per delegation.
		if ct, isConc := tool.(ConcurrentTool); isConc && ct.Concurrent() && !s.rt.cfg.Serial && i < len(calls)-1 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = t.invoke(ctx, tool, call)
			}()
			continue
		}
		results[i], errs[i] = t.invoke(ctx, tool, call)
	}
	wg.Wait()
	for i, c := range calls {
		if errs[i] != nil {
			t.childErrors = append(t.childErrors, errs[i])
		}
		s.j.ToolResult(c.ID, c.Name, results[i].Text, results[i].IsError)
	}
	return nil
}

// prepare resolves a call to its tool and validates the arguments. When ok
// is false, res is the error result the model gets instead.
func (t *turnRun) prepare(step int, c session.Part) (Tool, *Call, Result, bool) {
	tool, found := t.s.rt.cfg.Tools.Get(c.Name)
	if !found {
		names := t.s.rt.cfg.Tools.Names()
		if len(names) == 0 {
			return nil, nil, Errorf("unknown tool %q; the agent offers no tools (scenario.json's agent.tools lists the ones it offers)", c.Name), false
		}
		return nil, nil, Errorf("unknown tool %q; the tools are: %s", c.Name, strings.Join(names, ", ")), false
	}
	args := json.RawMessage(c.Arguments)
	if strings.TrimSpace(c.Arguments) == "" {
		args = json.RawMessage(`{}`)
	}
	if err := validateArgs(tool.Spec(), args); err != nil {
		return nil, nil, Errorf("%v", err), false
	}
	return tool, &Call{ID: c.ID, Name: c.Name, Arguments: args, Turn: t.turn, Step: step, Session: t.s, turn: t}, Result{}, true
}

// invoke runs one tool call; a panic in a tool becomes an error result. A
// recorded tool runs through the journal, which serves its recorded result
// in a replay (an error there is the tool's error result; the replay
// driver reports it).
func (t *turnRun) invoke(ctx context.Context, tool Tool, call *Call) (res Result, childErr error) {
	if rt, ok := tool.(RecordedTool); ok && rt.Recorded() {
		part := session.Part{ID: call.ID, Name: call.Name, Arguments: string(call.Arguments)}
		out, _ := t.s.j.Tool(ctx, part, func(ctx context.Context) session.ToolOutput {
			r := t.run(ctx, tool, call)
			return session.ToolOutput{Text: r.Text, IsError: r.IsError}
		})
		return Result{Text: out.Text, IsError: out.IsError}, call.childErr
	}
	return t.run(ctx, tool, call), call.childErr
}

// run runs a tool; a panic becomes an error result.
func (t *turnRun) run(ctx context.Context, tool Tool, call *Call) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = Errorf("tool %s panicked: %v", call.Name, r)
		}
	}()
	return tool.Run(ctx, call)
}

// delegateArgs are the arguments of the subagent tools.
type delegateArgs struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
}

const delegateSchema = `{"type":"object","properties":{"description":{"type":"string","description":"a few words naming the subtask"},"prompt":{"type":"string","description":"the full instructions for the subagent"}},"required":["description","prompt"]}`

// subagentTool is subagent_spawn or subagent_fork.
type subagentTool struct{ mode session.Mode }

// SpawnTool returns the subagent_spawn tool: it runs a child agent that
// starts with an empty conversation and returns the child's final text.
func SpawnTool() Tool { return subagentTool{mode: session.ModeSpawn} }

// ForkTool returns the subagent_fork tool: it runs a child agent that
// inherits the conversation's completed turns and returns its final text.
func ForkTool() Tool { return subagentTool{mode: session.ModeFork} }

// Tool names of the built-in subagent tools.
const (
	SpawnToolName = "subagent_spawn"
	ForkToolName  = "subagent_fork"
)

func (st subagentTool) Spec() llm.ToolSpec {
	spec := spawnSpec
	if st.mode == session.ModeFork {
		spec = forkSpec
	}
	return spec
}

// forkSpec and spawnSpec are the subagent tools' specs, made once: every
// model call of a session with subagent tools sends them. Their Parameters
// have no room beyond their length, so a caller's append copies them.
var (
	forkSpec  = llm.ToolSpec{Name: ForkToolName, Description: "Delegate a subtask to a subagent that inherits this conversation's completed turns. Returns the subagent's final answer.", Parameters: json.RawMessage(delegateSchema)}
	spawnSpec = llm.ToolSpec{Name: SpawnToolName, Description: "Delegate a subtask to a fresh subagent that sees only the prompt you give it. Returns the subagent's final answer.", Parameters: json.RawMessage(delegateSchema)}
)

func (subagentTool) Concurrent() bool { return true }

func (st subagentTool) Run(ctx context.Context, call *Call) Result {
	var args delegateArgs
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return Errorf("invalid arguments: %v", err)
	}
	if strings.TrimSpace(args.Prompt) == "" {
		return Errorf("the prompt is empty; say what the subagent should do")
	}
	text, err := call.turn.delegate(ctx, st.mode, call.ID, args.Prompt)
	var depth *depthError
	if errors.As(err, &depth) {
		return Errorf("%v", err)
	}
	if err != nil {
		call.childErr = err
		return Errorf("subagent failed: %v", err)
	}
	return Result{Text: text}
}

// delegate creates and runs a child session for the tool call callID.
func (t *turnRun) delegate(ctx context.Context, mode session.Mode, callID, prompt string) (string, error) {
	parent := t.s
	cfg := parent.rt.cfg
	depth := parent.Header().DelegationDepth + 1
	if depth > cfg.MaxDepth {
		return "", &depthError{depth: depth - 1, max: cfg.MaxDepth}
	}
	cj, err := parent.j.Child(ctx, callID, mode)
	if err != nil {
		return "", fmt.Errorf("agent: %w", err)
	}
	child := &Session{rt: parent.rt, j: cj}
	id := cj.ID()
	res, err := child.runTurn(ctx, prompt, "subagent")
	if err != nil {
		return "", fmt.Errorf("session %s: %w", id, err)
	}
	if res.Reason.Kind != session.TurnCompleted {
		return "", fmt.Errorf("session %s: turn %d ended %s: %s", id, res.Turn, res.Reason.Kind, res.Reason.Message)
	}
	return res.Text, nil
}

type depthError struct{ depth, max int }

func (e *depthError) Error() string {
	return fmt.Sprintf("delegation depth limit reached: this session is at depth %d and subagents may go %d deep; do the task yourself", e.depth, e.max)
}
