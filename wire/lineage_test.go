package wire_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a request's session, told by lineage", func() {
	child := func(id, call string) map[string]string {
		return map[string]string{wire.HeaderSession: id, wire.HeaderParent: "root", wire.HeaderCall: call, wire.HeaderMode: "spawn"}
	}
	infer := func(c *wire.Config) { c.Lineage = wire.Infer }
	twoCalls := []session.Part{toolCall("call_1", "subagent", `{"prompt":"look up the release"}`), toolCall("call_2", "subagent", `{"prompt":"look up the owner"}`)}

	It("under Infer, is refused when the request continues two sessions alike", func() {
		h, _, url := serveWire(script(map[string][]any{"root": {twoCalls}}), infer)
		ok(url, chat(user("hi")), nil)
		ok(url, chat(user("q")), child("a", "call_1"))
		ok(url, chat(user("q")), child("b", "call_2"))
		code, body := post(url, chat(user("q"), assistant("done"), user("more")), nil)
		expectRefused(h, code, body, "a request's conversation continues 2 sessions alike")
	})

	// An agent without memory sends every agent, children too, the same
	// preamble: its system prompt, then a context message, then the task.
	memoryless := func(system string, msgs ...string) string {
		return chat(append([]string{fmt.Sprintf(`{"role":"system","content":%q}`, system), user("Context: on call for team atlas.")}, msgs...)...)
	}
	helper := []session.Part{toolCall("call_1", "ask_helper", `{"prompt":"Find the region of the release."}`)}

	It("under Infer, records a child that sends its parent's preamble on the parent's first turn as a spawn: it inherits no completed turn", func() {
		h, store, url := serveWire(script(map[string][]any{"root": {helper}}), infer)
		ok(url, memoryless("You are the release bot.", user("Where does the release run?")), nil)
		ok(url, memoryless("You are a helper.", user("Find the region of the release.")), nil)
		ok(url, memoryless("You are the release bot.", user("Where does the release run?"), asked([3]string{"call_1", "ask_helper", `{"prompt":"Find the region of the release."}`}), result("call_1", "eu-west-1")), nil)
		Expect(h.Close(context.Background())).To(Succeed())
		l, err := store.Load(context.Background(), "root/call_1")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Header.Mode).To(Equal(session.ModeSpawn))
		Expect(l.Header.SeedLength).To(BeZero())
	})

	It("under Infer, records a child that sends only its parent's preamble on a later turn as a spawn: it sends none of the completed turns a fork inherits", func() {
		h, store, url := serveWire(script(map[string][]any{"root": {"OK", helper}}), infer)
		ok(url, memoryless("You are the release bot.", user("Where does the release run?")), nil)
		ok(url, memoryless("You are the release bot.", user("Where does the release run?"), assistant("OK"), user("Ask the helper.")), nil)
		ok(url, memoryless("You are a helper.", user("Find the region of the release.")), nil)
		ok(url, memoryless("You are the release bot.", user("Where does the release run?"), assistant("OK"), user("Ask the helper."), asked([3]string{"call_1", "ask_helper", `{"prompt":"Find the region of the release."}`}), result("call_1", "eu-west-1")), nil)
		Expect(h.Close(context.Background())).To(Succeed())
		l, err := store.Load(context.Background(), "root/call_1")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Header.Mode).To(Equal(session.ModeSpawn))
		Expect(l.Header.SeedLength).To(BeZero())
	})

	It("under Infer, tells the next turn of an agent without memory from its child's by the system prompt, when both sent the same preamble", func() {
		h, store, url := serveWire(script(map[string][]any{"root": {helper}}), infer)
		ok(url, memoryless("You are the release bot.", user("Where does the release run?")), nil)
		ok(url, memoryless("You are a helper.", user("Find the region of the release.")), nil)
		ok(url, memoryless("You are the release bot.", user("Where does the release run?"), asked([3]string{"call_1", "ask_helper", `{"prompt":"Find the region of the release."}`}), result("call_1", "eu-west-1")), nil)
		ok(url, memoryless("You are the release bot.", user("Summarise it in one line.")), nil)
		Expect(h.Close(context.Background())).To(Succeed())
		turns := func(id string) int {
			l, err := store.Load(context.Background(), id)
			Expect(err).NotTo(HaveOccurred())
			n := 0
			for _, e := range l.Events {
				if e.Type == session.TypeTurnStart {
					n++
				}
			}
			return n
		}
		Expect(turns("root")).To(Equal(2), "the summary is the root's second turn")
		Expect(turns("root/call_1")).To(Equal(1), "the helper had one turn")
	})

	It("under Infer, gives a call one child: a new session whose prompt is that of a call that created a child already is refused", func() {
		h, store, url := serveWire(script(map[string][]any{"root": {twoCalls}}), infer)
		ok(url, chat(user("hi")), nil)
		ok(url, chat(user("look up the release")), nil)
		code, body := post(url, chat(user("Some context."), user("look up the release")), nil)
		Expect(code).To(Equal(http.StatusBadRequest), body)
		Expect(body).To(ContainSubstring("continues no session, and no open tool call's arguments hold its prompt"))
		Expect(h.Close(context.Background())).To(HaveOccurred())
		headers, err := store.List(context.Background())
		Expect(err).NotTo(HaveOccurred())
		var ids []string
		for _, hd := range headers {
			ids = append(ids, hd.ID)
		}
		Expect(ids).To(ConsistOf("root", "root/call_1"))
	})

	It("names the root \"root\" only when the root sends no headers: a child of a root that names itself names it so", func() {
		h, _, url := serveWire(script(map[string][]any{"root": {twoCalls}}))
		ok(url, chat(user("hi")), map[string]string{wire.HeaderSession: "main"})
		code, body := post(url, chat(user("q")), child("a", "call_1"))
		Expect(code).To(Equal(http.StatusBadRequest), body)
		expectRefused(h, code, body, `child session "a" names parent "root", which has made no call`)
	})
})
