package session_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("a header's delegationDepth", func() {
	header := func(depth string) string {
		return `{"type":"session","version":0,"id":"c","createdAt":1,"parentSession":"p","delegationDepth":` + depth + `}` + "\n"
	}

	DescribeTable("is read from 0 to MaxDelegationDepth",
		func(depth int) {
			l, err := session.Read(strings.NewReader(header(fmt.Sprint(depth))), "x.jsonl")
			Expect(err).NotTo(HaveOccurred())
			Expect(l.Header.DelegationDepth).To(Equal(depth))
		},
		Entry("a root", 0),
		Entry("the deepest", session.MaxDelegationDepth),
	)

	DescribeTable("is refused outside, naming the file, the line, the member and the range",
		func(depth string) {
			_, err := session.Read(strings.NewReader(header(depth)), "x.jsonl")
			Expect(err).To(MatchError(session.ErrNotHeader))
			Expect(err).To(MatchError(`x.jsonl:1: bad session header: header field "delegationDepth": ` + depth +
				` is out of range: it must be 0 to 64 (0 for a root, the parent's + 1 for a child); fix the header or re-record the session`))
		},
		Entry("negative", "-1"),
		Entry("one too deep", "65"),
		Entry("what made inspect print 200 MB", "100000000"),
		Entry("the largest int", "9223372036854775807"),
	)

	It("is refused by Validate, which stores write through", func() {
		h := &session.Header{ID: "c", DelegationDepth: session.MaxDelegationDepth + 1}
		Expect(session.Validate(h, nil)).To(MatchError("header: delegationDepth 65 is out of range: it must be 0 to 64 (0 for a root, the parent's + 1 for a child); fix the header or re-record the session"))
		h.DelegationDepth = session.MaxDelegationDepth
		Expect(session.Validate(h, nil)).To(Succeed())
	})
})

var _ = Describe("FolderLogs, with a log that cannot be read", func() {
	var dir string
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		writeLog(dir, fixture.RootLog, lines(rootHeader))
	})

	It("names a child log that is a directory", func() {
		Expect(os.Mkdir(filepath.Join(dir, "session.2.jsonl"), 0o755)).To(Succeed())
		_, err := session.FolderLogs(dir)
		Expect(err).To(MatchError("session: " + filepath.Join(dir, "session.2.jsonl") + " is a directory, not a session log; move it away (or restore the log it replaced)"))
		_, err = session.ReadFolder(dir)
		Expect(err).To(MatchError(ContainSubstring("session.2.jsonl is a directory")))
	})

	It("names a child log that is a symlink to a directory", func() {
		Expect(os.Mkdir(filepath.Join(dir, "elsewhere"), 0o755)).To(Succeed())
		Expect(os.Symlink("elsewhere", filepath.Join(dir, "session.1.jsonl"))).To(Succeed())
		_, err := session.FolderLogs(dir)
		Expect(err).To(MatchError(ContainSubstring(filepath.Join(dir, "session.1.jsonl") + " is a directory, not a session log")))
	})

	It("names a dangling symlink and where it points", func() {
		Expect(os.Symlink("../gone.jsonl", filepath.Join(dir, "session.1.jsonl"))).To(Succeed())
		_, err := session.FolderLogs(dir)
		Expect(err).To(MatchError("session: " + filepath.Join(dir, "session.1.jsonl") + " is a symlink to ../gone.jsonl, which does not exist; restore the log or remove the link"))
	})

	It("reads a symlink to a log", func() {
		writeLog(dir, "real.log", lines(`{"type":"session","version":0,"id":"s2","createdAt":1,"parentSession":"s1","delegationDepth":1}`))
		Expect(os.Symlink("real.log", filepath.Join(dir, "session.1.jsonl"))).To(Succeed())
		logs, err := session.ReadFolder(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(logs)).To(Equal([]string{"s1", "s2"}))
	})
})
