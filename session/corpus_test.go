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
