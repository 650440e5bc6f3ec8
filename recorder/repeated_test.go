package recorder_test

import (
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/recorder"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a playbook.json that repeats a member", func() {
	It("is refused before anything is played, naming the file, the member's path and both lines", func() {
		dir := committed("errors/hang-timeout")
		// A second list of answers for the child: encoding/json would play
		// only this one.
		editFile(dir, fixture.PlaybookFile, "\"hang\": true\n      }\n    ]\n", "\"hang\": true\n      }\n    ],\n    \"call_fetch\": [{\"text\": \"Fetched\"}]\n")
		_, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).To(MatchError(playbook.ErrInvalid))
		Expect(err).To(MatchError("playbook: " + filepath.Join(dir, fixture.PlaybookFile) + `: invalid playbook: line 26: member "sessions.call_fetch" is repeated (first at line 20); keep one of them`))
	})
})
