package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// serve judges the recording it read when it started, which it served: its
// verdict reads again only the logs of sessions that differ from it.
var _ = Describe("agentsnap serve, a recorded log changed on disk while it serves", func() {
	// edit rewrites the last event (a turn/end) of the log at path.
	edit := func(path, from, to string) {
		GinkgoHelper()
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		i := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
		last := bytes.Replace(b[i:], []byte(from), []byte(to), 1)
		Expect(last).NotTo(Equal(b[i:]))
		Expect(os.WriteFile(path, append(b[:i:i], last...), 0o644)).To(Succeed())
	}

	It("judges a session that replays as it was read as it was read, and exits 0", func() {
		dir := copyFixture()
		s := startServe(nil, "serve", dir, "--runtime", "go-agent")
		edit(filepath.Join(dir, "session.1.jsonl"), `"completed"`, `"interrupted"`)
		Expect(runGoAgent(context.Background(), s.url, dir)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(out).To(Equal("mixed/go-agent: replay matches the recording (3 sessions, 6 model calls)\n"))
	})

	It("fails a session that differs from a log changed since, naming the file and saying to run serve again", func() {
		dir := copyFixture()
		path := filepath.Join(dir, "session.1.jsonl")
		edit(path, `"completed"`, `"interrupted"`) // the replay ends it completed: a difference
		s := startServe(nil, "serve", dir, "--runtime", "go-agent")
		edit(path, `"turn":2`, `"turn":3`)
		Expect(runGoAgent(context.Background(), s.url, dir)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(1))
		Expect(out).To(BeEmpty())
		Expect(stderr).To(Equal("agentsnap serve: judge: mixed/go-agent: reading the recording for the verdict: " + path + " changed since the replay began: the replay was served from the recording as it was read then, and is judged against it, so this session's verdict would compare it with another; run the replay again\n"))
	})
})
