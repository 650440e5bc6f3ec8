package ownloop_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestOwnloop(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "ownloop: a team's own agent loop under agentsnap")
}
