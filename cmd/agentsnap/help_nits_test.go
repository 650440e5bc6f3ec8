package main

import (
	"github.com/agentsnap/agentsnap/internal/columns"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("agentsnap help", func() {
	It("explains itself", func() {
		r := cli("", nil, "help", "help")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stderr).To(BeEmpty())
		Expect(r.stdout).To(HavePrefix("usage: agentsnap help [COMMAND]\n\nlist the commands, or explain one"))
		Expect(r.stdout).To(ContainSubstring(`"agentsnap COMMAND --help" (or -h)`))
	})

	DescribeTable("lists the commands, help among them",
		func(args ...string) {
			r := cli("", nil, args...)
			Expect(r.code).To(Equal(exitOK), r.stderr)
			Expect(r.stdout).To(MatchRegexp(`(?m)^  help +list the commands, or explain one`))
			Expect(r.stdout).To(MatchRegexp(`(?m)^  derive +print a session log's replay script`))
		},
		Entry("help", "help"),
		Entry("--help", "--help"),
		Entry("-h", "-h"),
	)

	DescribeTable("COMMAND --help and -h print what help COMMAND prints, and exit 0",
		func(name string) {
			want := cli("", nil, "help", name)
			Expect(want.code).To(Equal(exitOK))
			Expect(want.stdout).To(HavePrefix("usage: agentsnap " + name))
			for _, args := range [][]string{{"--help"}, {"-h"}, {"-help"}, {"x", "--help"}, {"--help=true"}} {
				r := cli("", nil, append([]string{name}, args...)...)
				Expect(r.code).To(Equal(exitOK), "%s %v: %s", name, args, r.stderr)
				Expect(r.stderr).To(BeEmpty(), "%s %v", name, args)
				Expect(r.stdout).To(Equal(want.stdout), "%s %v", name, args)
			}
		},
		Entry(nil, "inspect"),
		Entry(nil, "derive"),
		Entry(nil, "convert"),
		Entry(nil, "new"),
		Entry(nil, "record"),
		Entry(nil, "check"),
		Entry(nil, "help"),
	)

	DescribeTable("lists a command's flags from its flag set, with defaults",
		func(name string, want string) {
			r := cli("", nil, name, "--help")
			Expect(r.code).To(Equal(exitOK))
			Expect(r.stdout).To(HaveSuffix(want))
		},
		Entry(nil, "new", "fixtures folder.\n\nflags:\n  --fixtures DIR  the fixtures DIR the scenario is created under (default\n                  fixtures)\n"),
		Entry(nil, "derive", "\nflags:\n"+
			"  --attempts every|acted-on  which attempts of each step to replay,\n"+
			"                             every|acted-on: every also replays the failed ones,\n"+
			"                             so recovery happens again; acted-on only the last\n"+
			"                             one, which keeps its call's number (default every)\n"+
			"  --drop-incomplete          drop model calls without a finish chunk (crash\n"+
			"                             artifacts) instead of failing; each dropped call is\n"+
			"                             named on stderr\n"),
	)

	It("prints no flags section for a command without flags", func() {
		r := cli("", nil, "inspect", "--help")
		Expect(r.code).To(Equal(exitOK))
		Expect(r.stdout).NotTo(ContainSubstring("flags:"))
	})

	DescribeTable("an unknown flag exits 2 with the usage line and where the help is",
		func(name, usage string) {
			r := cli(GinkgoT().TempDir(), nil, name, "--bogus")
			Expect(r.code).To(Equal(exitUsage))
			Expect(r.stdout).To(BeEmpty())
			Expect(r.stderr).To(Equal("agentsnap " + name + ": flag provided but not defined: -bogus\nusage: " + usage + "\n" +
				`run "agentsnap help ` + name + `" for the details and flags` + "\n"))
		},
		Entry(nil, "inspect", "agentsnap inspect PATH"),
		Entry(nil, "derive", "agentsnap derive FILE [--attempts every|acted-on] [--drop-incomplete]"),
		Entry(nil, "convert", "agentsnap convert SRC DST"),
		Entry(nil, "new", "agentsnap new CATEGORY/NAME [--fixtures DIR]"),
		Entry(nil, "help", "agentsnap help [COMMAND]"),
	)

	It("refuses an unknown command and more than one", func() {
		r := cli("", nil, "help", "replay")
		Expect(r.code).To(Equal(exitUsage))
		Expect(r.stdout).To(BeEmpty())
		Expect(r.stderr).To(HavePrefix("agentsnap help: unknown command \"replay\"\n\nagentsnap: golden-snapshot testing"))

		r = cli("", nil, "help", "derive", "inspect")
		Expect(r.code).To(Equal(exitUsage))
		Expect(r.stderr).To(HavePrefix("agentsnap help: want at most one COMMAND, got 2 arguments\nusage: agentsnap help [COMMAND]\n"))
	})

	It("tells -h after -- from a call for help", func() {
		r := cli(GinkgoT().TempDir(), nil, "inspect", "--", "-h")
		Expect(r.code).To(Equal(exitBadData))
		Expect(r.stderr).To(ContainSubstring("agentsnap inspect: "))
		Expect(r.stdout).To(BeEmpty())
	})
})

var _ = Describe("text helpers", func() {
	It("aligns columns, leaves out empty ones, and trims the line ends", func() {
		Expect(columns.Align([][]string{
			{"a", "", "xx", "1"},
			{"bbb", "", "", "22"},
			{"cc", "", "y", ""},
		})).To(Equal([]string{
			"a    xx  1",
			"bbb      22",
			"cc   y",
		}))
	})

	It("wraps at spaces and keeps a long word whole", func() {
		Expect(wrap("one two three fourteen", 9)).To(Equal([]string{"one two", "three", "fourteen"}))
		Expect(wrap("", 9)).To(Equal([]string{""}))
		Expect(wrap("abcdefghijkl x", 5)).To(Equal([]string{"abcdefghijkl", "x"}))
	})
})
