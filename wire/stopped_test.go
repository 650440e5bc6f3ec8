package wire_test

import (
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a session left waiting for its tool results when the agent stops", func() {
	calls := func() map[string][]any {
		return map[string][]any{"root": {[]session.Part{toolCall("call_1", "lookup", `{"key":"release"}`)}}}
	}
	const stopped = "wire: session root stopped in turn 1 before it sent the results of its tool calls (call_1): "

	It("behind agentsnap serve (over HTTP) says to let the agent finish before stopping serve", func() {
		h, _, url := serveWire(script(calls()))
		ok(url, chat(user("hi")), nil)
		Expect(h.Close(context.Background())).To(MatchError(ContainSubstring(stopped + "the agent ended (or was stopped) in the middle of its work; let it finish before stopping serve")))
	})

	It("in process (Transport) says its run returned too early, and names no serve", func() {
		h, err := wire.NewHandler(wire.Config{Driver: script(calls()), Store: memory.New()})
		Expect(err).NotTo(HaveOccurred())
		client := &http.Client{Transport: wire.Transport(h)}
		resp, err := client.Post(wire.BaseURL+"/chat/completions", "application/json", strings.NewReader(chat(user("hi"))))
		Expect(err).NotTo(HaveOccurred())
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		err = h.Close(context.Background())
		Expect(err).To(MatchError(ContainSubstring(stopped + "the agent's run returned in the middle of its work (an error, a step limit?); let the agent finish each turn, sending its tool calls' results, before its run returns")))
		Expect(err.Error()).NotTo(ContainSubstring("serve"))
	})
})
