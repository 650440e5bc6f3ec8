package custom_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestCustom(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "custom categories")
}

var _ = suitekit.ReportGoldens(suitekit.OtherCategories()...)
