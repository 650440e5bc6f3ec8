package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap serve and the agent's calls", func() {
	It("replays once, printing its URL once, whatever schedules scenario.json asks for", func() {
		dir := copyFixture()
		path := filepath.Join(dir, scenario.File)
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, []byte(strings.Replace(string(b), `"prompts"`, `"schedules": 3, "prompts"`, 1)), 0o644)).To(Succeed())
		s := startServe(nil, "serve", dir, "--runtime", "go-agent")
		Expect(runGoAgent(context.Background(), s.url, dir)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(out).NotTo(ContainSubstring("http://"), "the URL goes out once, on the first line")
		Expect(out).NotTo(ContainSubstring("schedule"))
	})

	It("records nothing, and exits 1, when the agent stops before it sends its tool results", func() {
		dir := copyFixture(scenario.File, fixture.PlaybookFile)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "go-agent")
		a, prompts := goAgent(s.url, dir)
		Expect(a.Run(context.Background(), prompts[:1])).To(Succeed())
		// Turn 2's first answer asks for tools; the agent is stopped there.
		body := `{"model":"go-agent-model","messages":[{"role":"user","content":"` + prompts[0] + `"},{"role":"assistant","content":"OK"},{"role":"user","content":"` + prompts[1] + `"}]}`
		req, err := http.NewRequest(http.MethodPost, s.url+"/chat/completions", strings.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Agentsnap-Session", "root")
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		code, out, stderr := s.stop()
		Expect(code).To(Equal(1), out+stderr)
		Expect(stderr).To(ContainSubstring("stopped in turn 2 before it sent the results of its tool calls"))
		Expect(stderr).To(ContainSubstring("the fixture is unchanged"))
		_, err = os.Stat(filepath.Join(dir, "session.jsonl"))
		Expect(err).To(MatchError(os.ErrNotExist))
	})
})

var _ = Describe("agentsnap serve --record --replace-golden", func() {
	It("replaces a golden the new transcript differs from; without it the golden waits beside a proposal", func() {
		for _, replace := range []bool{false, true} {
			dir := copyFixture(scenario.File, fixture.PlaybookFile, fixture.GoldenFile)
			golden := filepath.Join(dir, fixture.GoldenFile)
			Expect(os.WriteFile(golden, []byte("a stale golden\n"), 0o644)).To(Succeed())
			args := []string{"serve", dir, "--record", "--runtime", "go-agent"}
			if replace {
				args = append(args, "--replace-golden")
			}
			s := startServe(nil, args...)
			Expect(runGoAgent(context.Background(), s.url, dir)).To(Succeed())
			code, out, stderr := s.stop()
			Expect(code).To(Equal(0), out+stderr)
			b, err := os.ReadFile(golden)
			Expect(err).NotTo(HaveOccurred())
			_, perr := os.Stat(golden + ".new")
			if replace {
				Expect(string(b)).To(Equal(readFile(filepath.Join(serveFixture, fixture.GoldenFile))))
				Expect(perr).To(MatchError(os.ErrNotExist))
			} else {
				Expect(string(b)).To(Equal("a stale golden\n"))
				Expect(perr).NotTo(HaveOccurred())
			}
		}
	})
})
