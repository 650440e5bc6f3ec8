package judge_test

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/persistence"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Options.Store's function is the user's own: the CLI's advice for a
// path it opens (jsonl:DIR, sqlite:PATH) does not fit its errors.
var _ = Describe("a replay through a user's store function that fails", func() {
	It("says the error came from Options.Store and that nothing was replayed, with no advice about paths it did not open", func() {
		fx, err := fixture.Load(filepath.Join("..", "fixtures", "spawn", "one-child"))
		Expect(err).NotTo(HaveOccurred())
		refused := errors.New("postgres: dial tcp 127.0.0.1:5432: connect: connection refused")
		_, err = judge.Replay(context.Background(), fx, judge.Options{Runtime: agent.Reference,
			Store: func() (persistence.Store, error) { return nil, refused }})
		Expect(err).To(MatchError(refused))
		Expect(err).To(MatchError("judge: spawn/one-child: the store of Options.Store does not open: postgres: dial tcp 127.0.0.1:5432: connect: connection refused; nothing was replayed"))
	})
})
