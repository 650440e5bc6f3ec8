package errors_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestErrors(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "errors scenarios")
}

var _ = suitekit.ReportGoldens("errors")
