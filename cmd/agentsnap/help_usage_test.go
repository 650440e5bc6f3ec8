package main

import (
	"flag"
	"regexp"

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
})
