package report_test

import (
	"sync"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the report in a browser, from a link with a broken fragment", Label("browser"), func() {
	It("throws nothing on a fragment that is not percent-encoding, and still opens a percent-encoded one", SpecTimeout(2*time.Minute), func(ctx SpecContext) {
		requireChromium()
		page := writtenPage()

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
