package recorder_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/recorder"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// refusingCounter is a live driver whose count is refused before it is
// sent, with a message that quotes a secret.
type refusingCounter struct {
	llm.Driver
	err error
}

func (c refusingCounter) CountTokens(context.Context, *llm.Request) (int64, error) { return 0, c.err }

var _ = Describe("a token count the live driver refuses with a secret in its message", func() {
	It("is redacted and still says why (what it wraps), so the agent gets the 400 it would without the secret", func() {
		set := secret.New()
		set.Add("ANTHROPIC_API_KEY", "sk-ant-watch-0123456789")
		d := refusingCounter{err: fmt.Errorf("%w: no key for anthropic-messages (sk-ant-watch-0123456789 is for another API)", llm.ErrCannotCount)}
		_, err := recorder.WatchedCount(context.Background(), d, set, &llm.Request{})
		Expect(err).To(MatchError(ContainSubstring("[REDACTED]")))
		Expect(err.Error()).NotTo(ContainSubstring("sk-ant-watch-0123456789"))
		Expect(errors.Is(err, llm.ErrCannotCount)).To(BeTrue(), "the wire layer answers it with a 400, not a 502 an SDK retries")
	})
})
