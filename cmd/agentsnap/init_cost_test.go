//go:build unix

package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// initLine is a line of GODEBUG=inittrace=1 for one of agentsnap's own
// packages: its name and the allocations its init made.
var initLine = regexp.MustCompile(`(?m)^init (github\.com/agentsnap/agentsnap/\S+) @.* (\d+) allocs$`)

var _ = Describe("agentsnap's start", func() {
	// Every command loads every package the CLI links: work an init does
	// (a template parsed, a regexp compiled) is paid by "agentsnap help"
	// as by a check. Those are done when first used.
	It("loads agentsnap's packages without work at init: at most 100 allocations each", func() {
		cmd := exec.Command(agentsnapBinary(), "help")
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		lines := initLine.FindAllStringSubmatch(string(out), -1)
		Expect(lines).NotTo(BeEmpty(), "no init line of an agentsnap package in:\n%s", out)
		for _, l := range lines {
			allocs, err := strconv.Atoi(l[2])
			Expect(err).NotTo(HaveOccurred())
			Expect(allocs).To(BeNumerically("<=", 100), "the init of %s", l[1])
		}
	})
})
