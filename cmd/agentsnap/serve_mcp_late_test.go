package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("serve --record --only-changed and the notifications of an MCP client whose handshake replayed", func() {
	const (
		initialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
		initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		cancelled   = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"the user stopped it"}}`
		rootsList   = `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`
	)

	It("sends the live server none of those the replay took, neither before the late handshake nor after it, and those that follow it on the live session", func() {
		var opened atomic.Int32
		u := newUpstream(func(w http.ResponseWriter, method string, id json.RawMessage) {
			if len(id) == 0 {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			if method == "initialize" {
				w.Header().Set("Mcp-Session-Id", fmt.Sprintf("live-%d", opened.Add(1)))
			}
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"12:00"}]}}`, id)
		})
		dir := copyFixture(scenario.File, fixture.PlaybookFile)
		// session runs the go-agent's prompts between the root client's
		// handshake, with the notifications in mid, and a tools/call after
		// its last turn; then one more notification.
		session := func(args ...string) {
			GinkgoHelper()
			s := startServe(nil, append([]string{"serve", dir, "--runtime", "go-agent", "--mcp", "clock=" + u.URL}, args...)...)
			status, _, hdr := mcpPost(s.url, "clock", initialize, nil)
			Expect(status).To(Equal(http.StatusOK))
			client := func(r *http.Request) { r.Header.Set("Mcp-Session-Id", hdr.Get("Mcp-Session-Id")) }
			for _, n := range []string{initialized, cancelled, rootsList} {
				status, body, _ := mcpPost(s.url, "clock", n, client)
				Expect(status).To(Equal(http.StatusAccepted), body)
			}
			Expect(runGoAgent(context.Background(), s.url, dir)).To(Succeed())
			status, body, _ := mcpPost(s.url, "clock", toolsCall, client)
			Expect(status).To(Equal(http.StatusOK), body)
			status, body, _ = mcpPost(s.url, "clock", rootsList, client)
			Expect(status).To(Equal(http.StatusAccepted), body)
			code, out, stderr := s.stop()
			Expect(code).To(Equal(exitOK), out+stderr)
		}
		session("--record")
		path := filepath.Join(dir, scenario.File)
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, bytes.Replace(b, []byte("all at once."), []byte("all at once, please."), 1), 0o644)).To(Succeed())
		_, sent := u.requests()
		Expect(sent).To(Equal([]string{initialize, initialized, cancelled, rootsList, toolsCall, rootsList, ""}), "a plain recording passes every notification on")

		session("--record", "--only-changed", "--replace-golden")
		got, now := u.requests()
		// The replayed handshake is sent again, with the initialized of
		// its own, before the first request recorded anew; the DELETE
		// last, when serve stops.
		Expect(now[len(sent):]).To(Equal([]string{initialize, initialized, toolsCall, rootsList, ""}),
			"the notifications of the replayed part are dropped, as its requests are not sent")
		Expect(got[len(sent)+3].Header.Get("Mcp-Session-Id")).To(Equal("live-2"), "a notification after the late handshake goes on its live session")
	})
})
