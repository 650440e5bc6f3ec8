package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("record --only-changed of a fixture recorded from a checkout with CRLF line endings", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "") // a recording
	})

	// Before CRLF counted as LF, a recording there held the digest of the
	// playbook's CRLF bytes: check takes that playbook as unchanged, and
	// so must the re-recording of only what changed.
	It("keeps what matches, instead of refusing the playbook as changed since the recording", func() {
		root, dir := crlfCheckout()
		pb, err := os.ReadFile(filepath.Join(dir, fixture.PlaybookFile))
		Expect(err).NotTo(HaveOccurred())
		sum := sha256.Sum256(pb)
		sc := filepath.Join(dir, scenario.File)
		b, err := os.ReadFile(sc)
		Expect(err).NotTo(HaveOccurred())
		lf := fixture.PlaybookDigest(pb)
		Expect(string(b)).To(ContainSubstring(lf))
		Expect(os.WriteFile(sc, []byte(strings.ReplaceAll(string(b), lf, "sha256:"+hex.EncodeToString(sum[:8]))), 0o644)).To(Succeed())

		r := cli(root, nil, "record", dir, "--only-changed")
		Expect(r.stderr).NotTo(ContainSubstring("changed since the recording"))
		Expect(r.code).To(Equal(exitOK), r.stderr)
	})
})
