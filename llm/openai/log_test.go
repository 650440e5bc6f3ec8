package openai_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// capture is a slog.Handler that keeps every record's message, level and
// attributes; it is safe for concurrent use.
type capture struct {
	mu      sync.Mutex
	records []logged
}

type logged struct {
	level slog.Level
	msg   string
	attrs map[string]any
}

func (c *capture) Enabled(context.Context, slog.Level) bool { return true }
func (c *capture) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *capture) WithGroup(string) slog.Handler            { return c }

func (c *capture) Handle(_ context.Context, r slog.Record) error {
	l := logged{level: r.Level, msg: r.Message, attrs: map[string]any{}}
	r.Attrs(func(a slog.Attr) bool {
		l.attrs[a.Key] = a.Value.Resolve().Any()
		return true
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.records = append(c.records, l)
	return nil
}

func (c *capture) Records() []logged {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]logged(nil), c.records...)
}

var _ = Describe("attempt logs", func() {
	It("tell the runtime's step attempts apart from the driver's HTTP attempts", func(ctx SpecContext) {
		p := newProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			if n <= 2 {
				failing(http.StatusInternalServerError, `{"error":{"message":"upstream exploded"}}`)(w, r, n)
				return
			}
			streaming(chunk(`{"content":"ok"}`, `"stop"`))(w, r, n)
		})
		var logs capture
		d := newDriver(p, func(c *openai.Config) { c.Logger, c.MaxRetries = slog.New(&logs), 1 })
		req := userRequest("x")
		req.Session.ID, req.Turn, req.Step = "root/call_7", 3, 4

		By("failing the step's first attempt after the driver's own retry")
		Expect(last(collect(ctx, d, req)).Failure.Code).To(Equal(openai.CodeServer))
		By("succeeding when the runtime tries the step again")
		req.Attempt = 2
		Expect(last(collect(ctx, d, req)).Kind).To(Equal(session.FinishStop))

		type key struct{ stepAttempt, attempt, status int }
		var got []key
		for _, r := range logs.Records() {
			Expect(r.msg).To(Equal("openai: attempt"))
			Expect(r.attrs).To(HaveKeyWithValue("session", "root/call_7"))
			Expect(r.attrs).To(HaveKeyWithValue("turn", int64(3)))
			Expect(r.attrs).To(HaveKeyWithValue("step", int64(4)))
			Expect(r.attrs).To(HaveKeyWithValue("model", "test-model"))
			got = append(got, key{int(r.attrs["stepAttempt"].(int64)), int(r.attrs["attempt"].(int64)), int(r.attrs["status"].(int64))})
			By("keeping the key, headers and URL out of every attribute")
			for name, v := range r.attrs {
				s := fmt.Sprint(v)
				noSecrets(s)
				Expect(s).NotTo(ContainSubstring(strings.TrimSuffix(strings.TrimPrefix(p.URL, "http://"), "/v1")), name)
			}
		}
		Expect(got).To(Equal([]key{{1, 1, 500}, {1, 2, 500}, {2, 1, 200}}))
		Expect(logs.Records()[1].attrs).To(HaveKeyWithValue("code", openai.CodeServer))
		Expect(logs.Records()[1].level).To(Equal(slog.LevelWarn))
		Expect(logs.Records()[2].level).To(Equal(slog.LevelDebug))
	})
})
