package wire

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// Tool runs one call of a recorded tool for the session whose answer made
// it: a tool whose output changes from run to run (the clock, a search, an
// HTTP API) or that must not run in CI. While recording (Config.ToolReplay
// nil, or one that answers llm.ErrRunTool: an only-changed recording's
// session recorded anew) it calls run and records the output in that
// session's log, as a
// tool/recorded event right before the call's tool/result; in a replay it
// returns the output recorded for the call in the session's own events —
// never one its fork seed inherited — and does not call run. See
// journal.Journal.Tool.
//
// call is the tool call as the agent runs it: its Name and Arguments, and
// its ID when the agent has it. The call must be one of the tool calls of
// the session's last answer (with an ID, that call, of the same name);
// without an ID it is the first of them not run yet with the same name and
// the same JSON arguments — so two alike calls that run at once need their
// IDs, or each may get the other's record. The session is
// the one header (Agentsnap-* headers) or ctx (Spawn, Fork) names, the
// root's when they name none; under Infer lineage, a ctx that names none
// leaves it to the call: the session whose last answer made it.
//
// Call it once the answer that made the call has been read: while that
// answer is being served, Tool waits for it to end. Until Tool returns,
// a request of the session is refused — its result cannot be in it yet,
// and the step the output is recorded in would change under the tool —
// and so is Close's ending of the session's turn (the log keeps what was
// stored): the agent waits for every tool of an answer before its next
// request. Tools of one answer run at once.
//
// A call no such answer made is an error, and run is not called. In a
// replay, a call the recording lacks, or recorded with other arguments
// (drift), is an error naming the session and the call; the output is
// then that error as an error result, which the agent may hand the model
// and go on — the replay fails either way. Over HTTP (header set), a call
// the recording answered, asked for again with its ID (a client that
// retries after its connection dropped), gets the same output, and
// nothing more is recorded; otherwise a call whose output is recorded
// runs once, and asked for again is an error.
func (h *Handler) Tool(ctx context.Context, header http.Header, call session.Part, run func(context.Context) session.ToolOutput) (session.ToolOutput, error) {
	s, made, err := h.claimTool(ctx, header, call, true, nil)
	if errors.Is(err, errAskedAgain) && header != nil {
		return s.givenOutput(made.ID), nil
	}
	if err != nil {
		return session.ToolOutput{}, err
	}
	ran := false
	if run != nil {
		do := run
		run = func(ctx context.Context) session.ToolOutput { ran = true; return do(ctx) }
	}
	// Not under s.mu: the tools of one answer run at once, and a tool may
	// make MCP requests of its own. The session's requests are refused
	// until it returns (running), so the turn and step it reads hold.
	out, err := s.j.Tool(ctx, made, run)
	s.toolReturned(made.ID, out, err == nil && !ran)
	return out, err
}

// ToolOutput records out as the output of a call the agent ran elsewhere
// (in another process, through serve, once ToolCall named it to run), as
// Tool does with a run that returns out; in a replay it answers as Tool
// does. The same output sent again for a call whose output is recorded,
// or being recorded — a client that retries after its connection dropped
// — returns out and records nothing: the output it sent first stands.
// Another output for that call is an error naming the session and the
// call.
func (h *Handler) ToolOutput(ctx context.Context, header http.Header, call session.Part, out session.ToolOutput) (session.ToolOutput, error) {
	s, made, err := h.claimTool(ctx, header, call, true, &out)
	if errors.Is(err, errSentAgain) {
		return out, nil
	}
	if err != nil {
		return session.ToolOutput{}, err
	}
	ran := false
	got, err := s.j.Tool(ctx, made, func(context.Context) session.ToolOutput { ran = true; return out })
	s.toolReturned(made.ID, got, err == nil && !ran)
	return got, err
}

// errSentAgain is toolCall's answer to an output sent again, the same.
var errSentAgain = errors.New("wire: the call's output, sent again")

// errAskedAgain is toolCall's answer (askedAgain) to a call asked for
// again, with its id, once the recording answered it: over HTTP, a client
// that retries after its connection dropped. It gets the same output
// (givenOutput), and nothing more is recorded. A retry cannot be told
// from the agent running the call again, but the id names the one call
// either way, and a call has one output; nothing runs in a replay. In
// process, where nothing retries, it is the agent running the call again:
// refused, as while recording a call asked for again once its output is
// recorded is (the tool would run again).
var errAskedAgain = errors.New("wire: the call, asked for again")

// askedAgain is errAskedAgain, saying why the call is refused where it is
// not answered again.
type askedAgain struct{ error }

func (askedAgain) Is(target error) bool { return target == errAskedAgain }

// toolReturned ends what claimTool's running began: the call's output,
// out, is recorded — given by the recording (a replay) when given.
func (s *wireSession) toolReturned(id string, out session.ToolOutput, given bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running[id]--; s.running[id] == 0 {
		delete(s.running, id)
	}
	delete(s.unsent, id)
	if s.recorded == nil {
		s.recorded = map[string]bool{}
	}
	s.recorded[id] = true
	if given {
		if s.given == nil {
			s.given = map[string]session.ToolOutput{}
		}
		s.given[id] = out
	}
}

// givenOutput returns the output the recording gave call id.
func (s *wireSession) givenOutput(id string) session.ToolOutput {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.given[id]
}

// unsentCalls names the calls of s's last answer that ToolCall named to
// run and whose output no Tool recorded yet, or "". The caller holds s.mu.
func (s *wireSession) unsentCalls() string {
	var calls []string
	for _, c := range s.awaiting {
		if s.unsent[c.ID] {
			calls = append(calls, c.Name+" (call "+c.ID+")")
		}
	}
	return strings.Join(calls, ", ")
}

// outputsUnsent returns an error naming the calls ToolCall named to run
// whose output never came, or nil: a request of s now sends their results
// (or goes on without them), and the recording would hold no output for
// a replay to answer them with. The caller holds s.mu.
func (s *wireSession) outputsUnsent() error {
	calls := s.unsentCalls()
	if calls == "" {
		return nil
	}
	return fmt.Errorf("wire: session %s: a request came before the output of its recorded tool %s was recorded: it was named to run (ToolCall; serve answered {\"run\": true}) and no output came, so a replay would have none to answer it with; send the output first, with the call's id (Tool; through serve, POST %s with \"id\" and \"output\"), an error output ({\"text\": \"...\", \"isError\": true}) if the tool failed", s.name, calls, "/agentsnap/tool")
}

// stillRunning returns an error naming the tools of s that run now (in
// Handler.Tool, whose journal.Tool reads the turn and step), or nil. A
// request of s then would change them under the tool, and the record of
// its output would land in a later step. The caller holds s.mu.
func (s *wireSession) stillRunning(what, advice string) error {
	if len(s.running) == 0 {
		return nil
	}
	var calls []string
	for _, c := range s.awaiting {
		if s.running[c.ID] > 0 {
			calls = append(calls, c.Name+" (call "+c.ID+")")
		}
	}
	return fmt.Errorf("wire: session %s: %s while its recorded tool %s still runs (wire.Handler.Tool, Env.Tool has not returned); %s, and make a tool that times out return when its context is done", s.name, what, strings.Join(calls, ", "), advice)
}

// ToolCall returns the tool call of a session's last answer that call is,
// as Tool finds it, and counts it as run: a later Tool without an ID finds
// the next one alike — two alike calls run at once get one each, which a
// retry without its id cannot be told from. It is for an agent that runs
// its tools elsewhere (in another process, through serve) and checks a
// call before it runs it; Tool with the ID returned then records its
// output. Until it has, the session's next request is refused (a replay
// would have no output to answer the call with), and a retry of the call
// asks again with the ID; once it has, the call is refused as run.
func (h *Handler) ToolCall(ctx context.Context, header http.Header, call session.Part) (session.Part, error) {
	_, made, err := h.claimTool(ctx, header, call, false, nil)
	return made, err
}

// ToolReplayed is ToolCall for a handler whose Config.ToolReplay may
// serve the call while recording — an only-changed recording
// (recorder.Options.OnlyChanged), whose sessions that still replay their
// recorded model calls get their recorded tool outputs: when it serves
// the call's output, that output is recorded as Tool records it and
// returned (served true), with its error as Tool returns it, and the tool
// must not run. Otherwise (served false) the call is named to run as
// ToolCall names it, and Tool with the returned call's ID records its
// output once run.
func (h *Handler) ToolReplayed(ctx context.Context, header http.Header, call session.Part) (made session.Part, out session.ToolOutput, served bool, err error) {
	s, made, err := h.claimTool(ctx, header, call, true, nil)
	if errors.Is(err, errAskedAgain) && header != nil {
		return made, s.givenOutput(made.ID), true, nil
	}
	if err != nil {
		return session.Part{}, session.ToolOutput{}, false, err
	}
	out, served, err = s.j.Replayed(ctx, made)
	if served {
		s.toolReturned(made.ID, out, err == nil)
		return made, out, true, err
	}
	// To run elsewhere: counted as ToolCall counts it, its output to come.
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running[made.ID]--; s.running[made.ID] == 0 {
		delete(s.running, made.ID)
	}
	if s.unsent == nil {
		s.unsent = map[string]bool{}
	}
	s.unsent[made.ID] = true
	return made, session.ToolOutput{}, false, err
}

// claimTool finds the session and the call of its last answer that call
// is, and counts the call as run: with running, as running until
// toolReturned, its output out when the agent sent it (ToolOutput); else
// as named to run, its output to come (unsent). An output sent again, the
// same, is errSentAgain.
func (h *Handler) claimTool(ctx context.Context, header http.Header, call session.Part, running bool, out *session.ToolOutput) (*wireSession, session.Part, error) {
	s, err := h.toolSession(ctx, header, call)
	if err != nil {
		return nil, session.Part{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	made, err := s.toolCall(call, out)
	switch {
	case err != nil:
	case running:
		if s.running == nil {
			s.running = map[string]int{}
		}
		s.running[made.ID]++
		if out != nil {
			if s.outputs == nil {
				s.outputs = map[string]session.ToolOutput{}
			}
			s.outputs[made.ID] = *out
		}
	default:
		if s.unsent == nil {
			s.unsent = map[string]bool{}
		}
		s.unsent[made.ID] = true
	}
	return s, made, err
}

// toolSession returns the session a recorded tool's call belongs to.
func (h *Handler) toolSession(ctx context.Context, header http.Header, call session.Part) (*wireSession, error) {
	id, byHeaders, err := fromHeaders(header)
	if err != nil {
		return nil, fmt.Errorf("wire: tool %s: %w", call.Name, err)
	}
	found, err := h.toolSessions(ctx, id, byHeaders, call)
	if len(found) > 1 {
		// Sessions whose alike call already ran do not wait for this one:
		// a framework that runs an answer's tools one after another (a
		// parent's tool, then a child that calls the same tool alike)
		// leaves the parent's call open until its next request. s.mu is
		// taken after h.mu is released, in the order the handler takes them.
		waiting := found[:0]
		for _, s := range found {
			s.mu.Lock()
			if s.waitsFor(call) {
				waiting = append(waiting, s)
			}
			s.mu.Unlock()
		}
		if len(waiting) > 0 {
			found = waiting
		}
	}
	switch {
	case err != nil:
		return nil, err
	case len(found) > 1:
		return nil, fmt.Errorf("wire: tool %s%s: sessions %s and %s both wait for the result of such a call; name the session: %s", call.Name, idNote(call.ID), found[0].name, found[1].name, nameSession)
	}
	return found[0], nil
}

// toolSessions returns the session a header or ctx names, or under Infer
// lineage every session whose answers made a call like call whose result
// has not come back.
func (h *Handler) toolSessions(ctx context.Context, id headerIdentity, byHeaders bool, call session.Part) ([]*wireSession, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := tagOf(ctx)
	switch {
	case byHeaders:
		s, err := h.byHeaderID(id)
		if err != nil {
			return nil, fmt.Errorf("wire: tool %s: %w", call.Name, err)
		}
		return []*wireSession{s}, nil
	case t != nil || h.cfg.Lineage == Explicit:
		s, err := h.byContextTag(t)
		if err != nil {
			return nil, fmt.Errorf("wire: tool %s: %w", call.Name, err)
		}
		return []*wireSession{s}, nil
	}
	// Infer: the session whose answers made the call.
	var found []*wireSession
	for _, s := range h.all {
		for _, m := range s.made {
			if !m.answered && (call.ID != "" && m.id == call.ID || call.ID == "" && m.name == call.Name && sameJSON(m.args, call.Arguments)) {
				if !slices.Contains(found, s) {
					found = append(found, s)
				}
			}
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("wire: tool %s%s%s: no session waits for the result of such a call (%s); call Tool for a tool call of the model's last answer, before the request that sends its result, with its arguments as the model made them (a framework may hand its tool another form: langchaingo's OpenAIFunctionsAgent gives it the __arg1 string alone)", call.Name, idNote(call.ID), argsNote(call.Arguments), h.openCalls(call.Name))
	}
	return found, nil
}

// waitsFor reports whether a call of s's last answer that call may be has
// not run yet: the one with call's ID whose output is not recorded nor
// being recorded, or without an ID one alike not claimed yet. The caller
// holds s.mu.
func (s *wireSession) waitsFor(call session.Part) bool {
	for _, c := range s.awaiting {
		switch {
		case call.ID != "" && c.ID == call.ID:
			return !s.recorded[c.ID] && s.running[c.ID] == 0
		case call.ID == "" && c.Name == call.Name && sameJSON(c.Arguments, call.Arguments) && !s.ran[c.ID]:
			return true
		}
	}
	return false
}

// openCalls lists the calls named name whose results no session has sent
// yet, with their sessions and arguments, for a call Infer found none
// for: an agent whose framework reshaped the arguments sees them side by
// side. The caller holds h.mu.
func (h *Handler) openCalls(name string) string {
	var open []string
	for _, s := range h.all {
		for _, m := range s.made {
			if !m.answered && m.name == name {
				open = append(open, "session "+s.name+"'s call "+m.id+" "+abbrev(m.args))
			}
		}
	}
	if len(open) == 0 {
		return "no session waits for a result of " + name
	}
	return "open calls of " + name + ": " + strings.Join(open, ", ")
}

func argsNote(args string) string {
	if args == "" {
		return ""
	}
	return " with arguments " + abbrev(args)
}

// nameSession says how an agent names the session of a tool call.
const nameSession = "in process, the context the session's calls are made with (wire.Spawn, wire.Fork); over HTTP, its Agentsnap-* headers"

// toolCall returns the tool call of s's last answer that call is: the one
// with call's ID, which must have call's name (and arguments, when given),
// or the first not run yet with its name and arguments, as the answer made
// it. out is the output the agent sends with call, if any: the one
// ToolOutput sent for a call already is errSentAgain. The caller holds
// s.mu.
func (s *wireSession) toolCall(call session.Part, out *session.ToolOutput) (session.Part, error) {
	for _, c := range s.awaiting {
		switch {
		case call.ID != "" && c.ID == call.ID:
			if c.Name != call.Name || call.Arguments != "" && !sameJSON(c.Arguments, call.Arguments) {
				// The right id with other arguments is as often the agent
				// changing them (a framework's schema defaults, its own
				// code) as ids mixed up.
				also := ""
				if c.Name == call.Name {
					also = ", and its arguments as the model made them (a framework that parses them — schema defaults, transforms — or the agent's own code may have changed them)"
				}
				return session.Part{}, fmt.Errorf("wire: tool %s (call %s) with arguments %s: session %s's call %s is %s with arguments %s; give each tool the id of its own call%s", call.Name, call.ID, abbrev(call.Arguments), s.name, c.ID, c.Name, abbrev(c.Arguments), also)
			}
			if s.recorded[c.ID] || s.running[c.ID] > 0 {
				if sent, ok := s.outputs[c.ID]; ok && out != nil {
					if *out == sent {
						return c, errSentAgain // a retry: nothing more to record
					}
					return session.Part{}, fmt.Errorf("wire: tool %s (call %s): session %s's call %s has its output recorded already, %s, and this sends another, %s; a call has one output: send it once (a retry sends the same output again), and to record another, record the scenario again", call.Name, call.ID, s.name, c.ID, outputNote(sent), outputNote(*out))
				}
				// Before the tool runs again: a call has one output.
				once := fmt.Errorf("wire: tool %s (call %s): session %s's call %s has its output recorded already (or being recorded); a call runs once: send each call's output once, and give a call of the next answer its own id", call.Name, call.ID, s.name, c.ID)
				if _, ok := s.given[c.ID]; ok && out == nil && s.running[c.ID] == 0 {
					return c, askedAgain{once} // over HTTP, a retry: answered as the first time
				}
				return session.Part{}, once
			}
		case call.ID == "" && c.Name == call.Name && sameJSON(c.Arguments, call.Arguments) && !s.ran[c.ID]:
		default:
			continue
		}
		if s.ran == nil {
			s.ran = map[string]bool{}
		}
		s.ran[c.ID] = true
		return c, nil
	}
	var made, unsent []string
	for _, c := range s.awaiting {
		made = append(made, c.Name+" "+c.ID+" "+abbrev(c.Arguments))
		if call.ID == "" && s.unsent[c.ID] && c.Name == call.Name && sameJSON(c.Arguments, call.Arguments) {
			unsent = append(unsent, c.ID)
		}
	}
	list := strings.Join(made, ", ")
	if list == "" {
		list = "none: it waits for no tool result"
	}
	retry := ""
	if len(unsent) > 0 {
		// Without an id a retry looks like another alike call run at
		// once, which must get a call of its own.
		retry = fmt.Sprintf("; the output of %s, named to run, never came: a retry of a call sends its id", strings.Join(unsent, ", "))
	}
	return session.Part{}, fmt.Errorf("wire: tool %s%s with arguments %s: session %s's last answer made no such call not run yet (its calls: %s)%s; ask for a call of the session's last answer, once, before the request that sends its result, and name its session: %s", call.Name, idNote(call.ID), abbrev(call.Arguments), s.name, list, retry, nameSession)
}

// outputNote quotes a tool's output for a message.
func outputNote(o session.ToolOutput) string {
	if o.IsError {
		return "the error " + abbrev(strconv.Quote(o.Text))
	}
	return abbrev(strconv.Quote(o.Text))
}

func idNote(id string) string {
	if id == "" {
		return ""
	}
	return " (call " + id + ")"
}
