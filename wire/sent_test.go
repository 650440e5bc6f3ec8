package wire_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// sending is an agent that sends, for its one prompt, each of bodies in
// turn — a request as a client of the API sends it, taken from the SDK's
// source — to path at the wire layer's origin, and reads each answer
// whole. Bodies after the first go on from the answer before them by ids
// the spec's live model gives out.
func sending(path string, bodies ...string) agentsnap.Runtime {
	return wire.Runtime("sending", func(ctx context.Context, env *wire.Env) error {
		origin := strings.TrimSuffix(env.BaseURL, "/v1")
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, _ string) error {
			for i, b := range bodies {
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, origin+path, strings.NewReader(b))
				if err != nil {
					return err
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := env.HTTPClient.Do(req)
				if err != nil {
					return err
				}
				answer, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					return err
				}
				if resp.StatusCode != http.StatusOK {
					return fmt.Errorf("request %d to %s: %s: %s", i+1, path, resp.Status, answer)
				}
			}
			return nil
		})
	})
}

// recordSent records rt live, through drv to the spec's model at
// endpoint, into a new one-turn fixture, and returns its folder.
func recordSent(ctx context.Context, drv llm.Driver, endpoint, model string, rt agentsnap.Runtime) string {
	GinkgoHelper()
	dir := newFixture("custom/sent", oneTurn, `{"sessions":{"root":[{"text":"x"}]}}`)
	opts := recorder.LiveOptions(drv, endpoint, model)
	opts.Runtime = rt
	_, err := recorder.Record(ctx, dir, opts)
	Expect(err).NotTo(HaveOccurred())
	return dir
}

// expectSettingDrift replays dir with rt, which sends what was recorded
// but for a member of the tools, and expects the drift to name the
// setting; the recorded bodies replay clean.
func expectSettingDrift(ctx context.Context, dir string, recorded, changed agentsnap.Runtime, setting string) {
	GinkgoHelper()
	Expect(mediaReplay(ctx, dir, recorded)).To(harness.MatchRecording())
	o := mediaReplay(ctx, dir, changed)
	Expect(o.Drift).NotTo(BeNil(), o.Report())
	Expect(o.Drift.String()).To(ContainSubstring("the request settings changed: " + setting + " "))
}
