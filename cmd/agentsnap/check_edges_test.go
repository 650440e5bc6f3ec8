package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("check on a fixture an agent in another process recorded through serve", func() {
	It("says how to replay it: from the agent's tests, or through serve with its runtime", func() {
		r := cli("", nil, "check", serveFixture)
		Expect(r.code).To(Equal(exitFail), r.stdout+r.stderr)
		Expect(r.stdout).To(ContainSubstring(`it was recorded with the runtime "go-agent", and the agentsnap CLI replays only its reference runtime; ` +
			`replay it from the tests that use "go-agent" (go test ./...), or, for an agent in another process, with go tool agentsnap serve cmd/agentsnap/` +
			serveFixture + ` --runtime go-agent and the agent run against the URL it prints`))
	})
})
