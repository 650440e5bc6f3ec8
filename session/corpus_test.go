package session_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

// corpusEnv names a folder of real dsh logs to try the codec on. The logs
// are not part of the repository; without the variable the spec is skipped.
//
//	AGENTSNAP_DSH_CORPUS=/path/to/dsh-snapshots go tool ginkgo --focus corpus ./session
const corpusEnv = "AGENTSNAP_DSH_CORPUS"

var _ = Describe("a corpus of dsh logs", func() {
	It("reads every log; logs without packed rows re-encode byte for byte", func() {
		root := os.Getenv(corpusEnv)
		if root == "" {
			Skip(corpusEnv + " is not set")
		}
		var paths []string
		Expect(filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				paths = append(paths, p)
			}
			return err
		})).To(Succeed())
		Expect(paths).NotTo(BeEmpty())

		packed := 0
		for _, p := range paths {
			raw, err := os.ReadFile(p)
			Expect(err).NotTo(HaveOccurred())
			l, err := session.ReadFile(p)
			Expect(err).NotTo(HaveOccurred())
			Expect(session.Validate(&l.Header, l.Events)).To(Succeed(), p)
			for _, e := range l.Events {
				if e.Type == session.TypeAssistantChunk {
					d, err := session.DecodeChunkData(e.Data)
					Expect(err).NotTo(HaveOccurred(), "%s seq %d", p, e.Seq)
					Expect(string(d.AppendJSON(nil))).To(Equal(string(e.Data)), "%s seq %d", p, e.Seq)
				}
			}
			if bytes.Contains(raw, []byte(`-chunks","seq0":`)) {
				packed++
				Expect(len(l.Events)).To(BeNumerically(">", bytes.Count(raw, []byte{'\n'})-1), p)
				continue
			}
			Expect(string(session.Encode(&l.Header, l.Events))).To(Equal(string(raw)), p)
		}
		GinkgoWriter.Printf("%d logs read, %d with packed rows\n", len(paths), packed)
	})
})

var _ = Describe("the model calls of a corpus of dsh logs", func() {
	It("are counted by their streams: each ends with one finish, or its turn was aborted", func() {
		root := os.Getenv(corpusEnv)
		if root == "" {
			Skip(corpusEnv + " is not set")
		}
		total := 0
		Expect(filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			l, err := session.ReadFile(p)
			Expect(err).NotTo(HaveOccurred())
			own := l.Own()
			calls := l.ModelCalls()
			total += len(calls)
			for k, c := range calls {
				Expect(own[c.At].Type).NotTo(Equal(session.TypeRequestHeader), "%s: dsh's request/header is no call", p)
				end := len(own)
				if k+1 < len(calls) {
					end = calls[k+1].At
				}
				finishes, aborted := 0, false
				for i := c.At; i < end; i++ {
					switch own[i].Type {
					case session.TypeAssistantChunk:
						if d, err := session.DecodeChunkData(own[i].Data); err == nil && d.Chunk.IsFinish() {
							finishes++
						}
					case session.TypeTurnEnd:
						aborted = strings.Contains(string(own[i].Data), `"kind":"aborted"`)
					}
				}
				Expect(finishes).To(BeNumerically("<=", 1), "%s: call %d (seq %d)", p, k+1, own[c.At].Seq)
				if finishes == 0 {
					Expect(aborted).To(BeTrue(), "%s: call %d (seq %d) has no finish and its turn was not aborted", p, k+1, own[c.At].Seq)
				}
			}
			return nil
		})).To(Succeed())
		GinkgoWriter.Printf("%d model calls\n", total)
	})
})
