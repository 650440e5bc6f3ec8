package harness_test

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a runtime that writes no log", func() {
	It("gets an outcome that names its error and every recorded session it never created", func() {
		fx, err := fixture.Load(filepath.Join("..", "fixtures", "spawn", "one-child"))
		Expect(err).NotTo(HaveOccurred())
		silent := agentsnap.RuntimeFunc(func(context.Context, *agentsnap.Env) error { return errors.New("the agent could not start") })
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: silent})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Passed()).To(BeFalse())
		Expect(o.RunErrors).To(ConsistOf(MatchError("the agent could not start")))
		Expect(o.Report()).To(ContainSubstring("root (root session): the replay never created this session"))
		Expect(o.Report()).To(ContainSubstring("session 1 (spawn of root via call_spawn_1): the replay never created this session"))
	})
})
