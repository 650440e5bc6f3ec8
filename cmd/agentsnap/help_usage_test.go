package main

import (
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("each command's usage line", func() {
	It("names every flag the command takes", func() {
		for name, c := range commands {
			c.flags().VisitAll(func(f *flag.Flag) {
				dashes := "--"
				if len(f.Name) == 1 {
					dashes = "-" // report's -o
				}
				Expect(c.args).To(MatchRegexp(`(^|[\[ |])`+regexp.QuoteMeta(dashes+f.Name)+`\b`), "agentsnap %s: the usage line lacks %s%s", name, dashes, f.Name)
			})
		}
	})

	It("gives each flag's value the name its flags section gives it", func() {
		var wrong []string
		for name, c := range commands {
			c.flags().VisitAll(func(f *flag.Flag) {
				value, _ := flag.UnquoteUsage(f)
				if value == "" {
					return // a boolean flag takes no value
				}
				dashes := "--"
				if len(f.Name) == 1 {
					dashes = "-"
				}
				if !regexp.MustCompile(`(^|[\[ |])` + regexp.QuoteMeta(dashes+f.Name+" "+value) + `($|[\] ])`).MatchString(c.args) {
					wrong = append(wrong, fmt.Sprintf("agentsnap %s: the flags section spells %s%s %s, the usage line otherwise", name, dashes, f.Name, value))
				}
			})
		}
		slices.Sort(wrong)
		Expect(wrong).To(BeEmpty())
	})

	It("wraps each command's help at 80 columns, but for its usage line and summary", func() {
		var long []string
		for name := range commands {
			r := cli("", nil, "help", name)
			Expect(r.code).To(Equal(exitOK), r.stderr)
			lines := strings.Split(r.stdout, "\n")
			for i, l := range lines[3:] { // usage, blank, summary
				if n := utf8.RuneCountInString(l); n > helpWidth {
					long = append(long, fmt.Sprintf("agentsnap %s: help line %d has %d columns: %s", name, i+4, n, l))
				}
			}
		}
		slices.Sort(long)
		Expect(long).To(BeEmpty())
	})

	It("lists the commands in the order a user meets them", func() {
		r := cli("", nil, "help")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		var names []string
		for _, l := range strings.Split(r.stdout, "\n") {
			if f := strings.Fields(l); strings.HasPrefix(l, "  ") && len(f) > 0 {
				names = append(names, f[0])
			}
		}
		Expect(names).To(Equal([]string{"new", "record", "check", "review", "report", "serve", "inspect", "derive", "convert", "help"}))
	})
})
