package fakellm_test

import (
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// fixtureFolders are the repo's recorded scenarios.
func fixtureFolders() []string {
	GinkgoHelper()
	dirs, err := filepath.Glob("../fixtures/*/*")
	Expect(err).NotTo(HaveOccurred())
	Expect(dirs).NotTo(BeEmpty())
	return dirs
}

var _ = Describe("PrepareFiles: scripts derived as the files are read", func() {
	It("derives from every fixture's files what Prepare derives from its logs in memory, turn ends included", func() {
		for _, dir := range fixtureFolders() {
			paths, err := session.FolderLogs(dir)
			Expect(err).NotTo(HaveOccurred())
			logs := make([]*session.Log, len(paths))
			for i, p := range paths {
				logs[i], err = session.ReadFile(p)
				Expect(err).NotTo(HaveOccurred())
			}
			var opts []fakellm.Option
			if ov, err := fakellm.ReadOverride(filepath.Join(dir, "replay.override.json")); err == nil {
				opts = append(opts, fakellm.WithOverride(ov))
			}
			inMemory, err := fakellm.Prepare(logs, opts...)
			Expect(err).NotTo(HaveOccurred(), dir)
			fromFiles, err := fakellm.PrepareFiles(paths, opts...)
			Expect(err).NotTo(HaveOccurred(), dir)
			Expect(fromFiles.Scripts()).To(Equal(inMemory.Scripts()), dir)
			for i, s := range fromFiles.Scripts() {
				// An empty map and none mean the same: no turn ended.
				want := fakellm.LogTurnEnds(logs[i])
				if len(want) == 0 {
					Expect(fakellm.TurnEnds(s)).To(BeEmpty(), s.Name)
				} else {
					Expect(fakellm.TurnEnds(s)).To(Equal(want), s.Name)
				}
			}
		}
	})

	It("keeps the turn ends of a fork child's own turns only, not its seed's", func() {
		dir := writeFixture(tree()...)
		rec, err := fakellm.PrepareFiles([]string{filepath.Join(dir, "session.jsonl"), filepath.Join(dir, "session.3.jsonl")})
		Expect(err).NotTo(HaveOccurred())
		root, fork := rec.Scripts()[0], rec.Scripts()[1]
		Expect(fakellm.TurnEnds(root)).To(HaveLen(2))
		Expect(fakellm.TurnEnds(fork)).To(Equal(map[int]string{3: session.TurnCompleted}))
	})

	It("replays the tree from its files, names the folder in its record command and hands a Deriver of one's own the log", func() {
		dir := writeFixture(tree()...)
		paths, err := session.FolderLogs(dir)
		Expect(err).NotTo(HaveOccurred())
		var given []string
		rec, err := fakellm.PrepareFiles(paths, fakellm.WithDeriver(func(l *session.Log) (*fakellm.Script, error) {
			given = append(given, l.Path)
			return fakellm.DeriveLog(l, fakellm.DeriveOptions{})
		}))
		Expect(err).NotTo(HaveOccurred())
		Expect(given).To(Equal(paths))
		drv, err := rec.Driver()
		Expect(err).NotTo(HaveOccurred())
		Expect(replayTree(drv, "files")).To(Equal([]string{"OK", "delegating", "ALPHA", "GAMMA", "BETA", "BETA2", "DONE"}))
		Expect(drv.Check()).To(Succeed())
		_, err = call(drv, liveRoot("files-root"), 3, 1)
		Expect(err).To(MatchError(ContainSubstring("go tool agentsnap record " + dir)))
	})

	It("names the file of a log it cannot read or parse", func() {
		dir := writeFixture(tree()...)
		bad := writeFile(dir, "session.2.jsonl", "{\"type\":\"session\",\"version\":0,\"id\":\"rec-g\",\"createdAt\":0}\nnot json\n")
		_, err := fakellm.PrepareFiles([]string{filepath.Join(dir, "session.jsonl"), bad})
		Expect(err).To(MatchError(ContainSubstring(bad + ":2")))
		Expect(err).To(MatchError(ContainSubstring("restore the log from version control, or re-record the scenario")))
		Expect(os.Remove(bad)).To(Succeed())
		_, err = fakellm.PrepareFiles([]string{filepath.Join(dir, "session.jsonl"), bad})
		Expect(err).To(MatchError(ContainSubstring(bad)))
	})
})

var _ = Describe("WithReleaseServed: a recording replayed once", func() {
	It("lets go of each answer it served, replays the same and still says which calls were never made", func() {
		rec, err := fakellm.Prepare(tree())
		Expect(err).NotTo(HaveOccurred())
		drv, err := rec.Driver(fakellm.WithReleaseServed())
		Expect(err).NotTo(HaveOccurred())
		root := liveRoot("once-root")
		Expect(say(drv, root, 1, 1)).To(Equal("OK"))
		Expect(say(drv, root, 2, 1)).To(Equal("delegating"))
		scripts := rec.Scripts()
		Expect(scripts[0].Entries[0].Chunks).To(BeNil())
		Expect(scripts[0].Entries[1].Chunks).To(BeNil())
		Expect(scripts[0].Entries[2].Chunks).NotTo(BeEmpty(), "an answer not yet served")
		Expect(texts(scripts[1].Entries)).To(Equal([]string{"ALPHA"}))
		Expect(drv.Check()).To(MatchError(ContainSubstring("never")))
	})

	It("plays a claimed answer whole although the script let go of it when the call was made", func() {
		rec, err := fakellm.Prepare(tree())
		Expect(err).NotTo(HaveOccurred())
		drv, err := rec.Driver(fakellm.WithReleaseServed())
		Expect(err).NotTo(HaveOccurred())
		seq, err := drv.Stream(context.Background(), &llm.Request{Session: liveRoot("claim-root"), Turn: 1, Step: 1, Attempt: 1})
		Expect(err).NotTo(HaveOccurred())
		Expect(rec.Scripts()[0].Entries[0].Chunks).To(BeNil())
		var got []session.Chunk
		for c := range seq {
			got = append(got, c)
		}
		Expect(textOf(got)).To(Equal("OK"))
	})

	It("leaves the scripts whole without it, for the next driver", func() {
		rec, err := fakellm.Prepare(tree())
		Expect(err).NotTo(HaveOccurred())
		drv, err := rec.Driver()
		Expect(err).NotTo(HaveOccurred())
		Expect(say(drv, liveRoot("keep-root"), 1, 1)).To(Equal("OK"))
		Expect(texts(rec.Scripts()[0].Entries)[0]).To(Equal("OK"))
	})
})
