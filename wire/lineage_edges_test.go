package wire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// backgroundChild is an agent whose tool starts a subagent in the
// background: the tool answers at once, and the child calls the model
// after its parent's first turn ended — with wire.Spawn when named, else
// on the root's context, its calls naming no session. A second prompt is
// a turn without tools.
func backgroundChild(named bool) agentsnap.Runtime {
	return wire.Runtime("background-child", func(ctx context.Context, env *wire.Env) error {
		post := func(ctx context.Context, body string) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, env.BaseURL+"/chat/completions", strings.NewReader(body))
			if err != nil {
				return err
			}
			resp, err := env.HTTPClient.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("%d %s", resp.StatusCode, b)
			}
			return json.Unmarshal(b, new(map[string]any))
		}
		system := `{"role":"system","content":"You plan trips."}`
		var first []string // the first turn's conversation
		return env.EachPrompt(ctx, func(ctx context.Context, i int, prompt string) error {
			if i > 0 {
				return post(ctx, chat(append(first, user(prompt))...))
			}
			if err := post(ctx, chat(system, user(prompt))); err != nil {
				return err
			}
			start := asked([3]string{"call_1", "subagent", `{"prompt":"Find hotels in Lisbon."}`})
			if err := post(ctx, chat(system, user(prompt), start, result("call_1", "started"))); err != nil {
				return err
			}
			first = []string{system, user(prompt), start, result("call_1", "started"), assistant("The hotels are being looked up.")}
			child := ctx
			if named {
				child = wire.Spawn(ctx, "call_1")
			}
			return post(child, chat(`{"role":"system","content":"You find hotels."}`, user("Find hotels in Lisbon.")))
		})
	})
}

var _ = Describe("a replayed subagent's call that names no session", func() {
	It("reaches the root's script, and the replay's report says it looks like a child without its lineage and how to name it", func() {
		dir := newFixture("spawn/background", `{"prompts": ["Plan a trip to Lisbon."]}`, `{"sessions": {
  "root": [{"toolCalls": [{"id": "call_1", "name": "subagent", "arguments": {"prompt": "Find hotels in Lisbon."}}]}, {"text": "The hotels are being looked up."}],
  "call_1": [{"text": "Hotel Lisboa."}]
}}`)
		_, err := recordWith(dir, backgroundChild(true))
		Expect(err).NotTo(HaveOccurred())
		Expect(replayWith(loadFixture(dir), harness.Options{Runtime: backgroundChild(true)})).To(harness.MatchRecording())

		o := replayWith(loadFixture(dir), harness.Options{Runtime: backgroundChild(false)})
		Expect(o.Report()).To(ContainSubstring(`fakellm: script exhausted: session root (session.jsonl): asked for call 3, recorded 2 (live call at turn 2 step 1) — ` +
			`this call does not go on from the root's conversation (its system prompt is "You find hotels.", the root's last call's "You plan trips."): it looks like a subagent's call made without the child's lineage, served from the root's script, which a re-recording does not mend; ` +
			`name the child's session on its calls (README, "An agent on an SDK: swap its HTTP client": wire.Spawn or wire.Fork on the child's context; behind agentsnap serve, the Agentsnap-* headers); else the agent made more model calls than the recording`))
	})
})

var _ = Describe("a replayed subagent's call that names no session and takes the root's next answer", func() {
	It("is named in the root's drift as a call that does not go on from the root's conversation", func() {
		dir := newFixture("spawn/background", `{"prompts": ["Plan a trip to Lisbon.", "And Porto?"]}`, `{"sessions": {
  "root": [{"toolCalls": [{"id": "call_1", "name": "subagent", "arguments": {"prompt": "Find hotels in Lisbon."}}]}, {"text": "The hotels are being looked up."}, {"text": "Porto too."}],
  "call_1": [{"text": "Hotel Lisboa."}]
}}`)
		_, err := recordWith(dir, backgroundChild(true))
		Expect(err).NotTo(HaveOccurred())
		Expect(replayWith(loadFixture(dir), harness.Options{Runtime: backgroundChild(true)})).To(harness.MatchRecording())

		o := replayWith(loadFixture(dir), harness.Options{Runtime: backgroundChild(false)})
		Expect(o.Drift).NotTo(BeNil(), o.Report())
		Expect(o.Drift.String()).To(HavePrefix("root (root session), model call 3 (turn 2 step 1): the system prompt changed"))
		Expect(o.Drift.String()).To(HaveSuffix(`; this call does not go on from the root's conversation (another system prompt or first message than its call 2), as the recorded one did: it looks like a subagent's call made without the child's lineage, served from the root's script; ` +
			`name the child's session on its calls (README, "An agent on an SDK: swap its HTTP client": wire.Spawn or wire.Fork on the child's context; behind agentsnap serve, the Agentsnap-* headers)`))
	})
})
