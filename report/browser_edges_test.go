package report_test

import (
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/report"
)

var _ = Describe("the report in a browser, from a link with a broken fragment", Label("browser"), func() {
	It("throws nothing on a fragment that is not percent-encoding, and still opens a percent-encoded one", SpecTimeout(2*time.Minute), func(ctx SpecContext) {
		requireChromium()
		path := filepath.Join(GinkgoT().TempDir(), "report.html")
		f, err := os.Create(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(report.Write(f, "agentsnap report", []report.Scenario{failing(), passing()})).To(Succeed())
		Expect(f.Close()).To(Succeed())
		page := (&url.URL{Scheme: "file", Path: path}).String()

		var mu sync.Mutex
		var thrown []string
		tab := startBrowser(ctx, func(ev any) {
			if e, ok := ev.(*runtime.EventExceptionThrown); ok {
				mu.Lock()
				what := e.ExceptionDetails.Text
				if e.ExceptionDetails.Exception != nil {
					what += " " + e.ExceptionDetails.Exception.Description
				}
				thrown = append(thrown, what)
				mu.Unlock()
			}
		})
		// #%E0 is what a truncated UTF-8 escape leaves: decodeURIComponent
		// throws on it.
		Expect(chromedp.Do(tab, chromedp.Navigate(page+"#%E0"), chromedp.WaitReady(chromedp.ID("s2")))).To(Succeed())
		Expect(eval[bool](tab, `document.getElementById("s2").open`)).To(BeFalse())
		Expect(eval[bool](tab, `(() => { location.hash = "#s%32"; return true; })()`)).To(BeTrue())
		Eventually(func() bool { return eval[bool](tab, `document.getElementById("s2").open`) }).WithContext(ctx).Should(BeTrue(), "#s%32 names s2")

		mu.Lock()
		defer mu.Unlock()
		Expect(thrown).To(BeEmpty(), "the page's script threw")
	})
})
