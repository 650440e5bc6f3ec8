package wire_test

import (
	"context"
	"iter"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/llm"
	. "github.com/onsi/ginkgo/v2"
)

var _ = Describe("a request without the results, from another agent of the session", func() {
	// An Agents SDK input guardrail that runs an agent calls the model in
	// the session of the agent it guards, in parallel by default: the
	// guard's request may come after the triage's answer, a handoff whose
	// result it cannot carry, with no tool call to name it a child by and
	// without the triage's history (its run continued a previous one).
	It("is refused saying how to run an agent that shares the session, besides how to name a child", func() {
		var n atomic.Int32
		drv := llm.DriverFunc(func(context.Context, *llm.Request) (iter.Seq[llm.Chunk], error) {
			if n.Add(1) == 1 { // the triage's
				return calls(toolCall("call_h", "transfer_to_Billing", `{}`)), nil
			}
			return say(`{"offTopic":false}`), nil
		})
		h, _, url := serveWire(drv)
		ok(url, chat(`{"role":"system","content":"[TRIAGE]"}`, user("My sync fails."), assistant("Sign in again."), user("I was charged twice.")), nil)
		code, body := post(url, chat(`{"role":"system","content":"[GUARD]"}`, user("I was charged twice.")), nil)
		expectRefused(h, code, body, "a request for session root, which waits for the results of its tool calls (call_h), carries none of them; if it is a subagent's call, name its session: in process, make the child's context with wire.Spawn(ctx, callID) or wire.Fork(ctx, callID) from its parent's; over HTTP, send the headers Agentsnap-Session, Agentsnap-Parent, Agentsnap-Call and Agentsnap-Mode; or let agentsnap infer children from the calls' arguments (agentsnap serve --lineage=infer, wire.InferLineage()); if it is another agent's that calls in this session beside the one that made them, with no tool call to name it by (an input guardrail that runs an agent, which the Agents SDK runs in parallel by default), run it before the agent it guards (runInParallel: false)")
	})
})
