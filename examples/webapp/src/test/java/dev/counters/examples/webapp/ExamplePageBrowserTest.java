package dev.counters.examples.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.openqa.selenium.support.ui.ExpectedConditions.textToBe;
import static org.openqa.selenium.support.ui.ExpectedConditions.textToBePresentInElementLocated;

import dev.counters.BoundedCounter;
import dev.counters.CounterService;
import dev.counters.MembershipCounter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The example page in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, which
 * {@code ./test} installs): it clicks what a visitor clicks and checks that the numbers on the page change as the
 * page says they will. It leaves a screenshot in {@code target/example-page.png} ({@code docs/example-page.png} is
 * one).
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:example-page-test;DB_CLOSE_DELAY=-1",
            "example.flash-sale.hold-ttl=3s",
            "counters.bounded.sweep-interval=1s"
        })
class ExamplePageBrowserTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    @LocalServerPort
    private int port;

    @Autowired
    private CounterService counters;

    private ChromeDriver browser;
    private WebDriverWait wait;

    @BeforeEach
    void openThePage() {
        assertThat(CHROMIUM)
                .as("Debian's chromium package (./test installs it: apt-get install chromium " + "chromium-driver)")
                .exists();
        assertThat(CHROMEDRIVER)
                .as("Debian's chromium-driver package (./test installs it)")
                .exists();
        ChromeOptions options = new ChromeOptions()
                .setBinary(CHROMIUM.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1100,1200");
        browser = new ChromeDriver(
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(CHROMEDRIVER.toFile())
                        .build(),
                options);
        wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        browser.get("http://localhost:" + port + "/");
        // The first poll of /api/stats has answered: the chart has its bars.
        wait.until(driver ->
                driver.findElements(By.cssSelector("#reads-chart rect")).size() == StatsController.CHART_WINDOWS);
    }

    @AfterEach
    void closeTheBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void whatTheVisitorClicksChangesTheNumbersAsThePageSays() throws IOException {
        // A view is counted at once.
        browser.findElement(By.id("read-hello-counters")).click();
        wait.until(textToBe(By.id("views-hello-counters"), "1"));
        // ... and in the windowed reads, which the chart draws as one bar per 5-second window (the read's window may
        // have ended by the next poll, so any bar, not only the current window's).
        // One script, so that a redraw between finding the bars and reading them cannot leave a stale bar.
        wait.until(driver -> Boolean.TRUE.equals(((JavascriptExecutor) driver)
                .executeScript("return [...document.querySelectorAll('#reads-chart rect')]"
                        + ".some(bar => parseFloat(bar.getAttribute('height')) > 0)")));

        // A buffered like shows at once, and reaches the database with the next flush.
        browser.findElement(By.id("like-hello-counters")).click();
        wait.until(textToBe(By.id("likes-hello-counters"), "1"));
        wait.until(textToBePresentInElementLocated(By.id("notice"), "counted in memory"));
        wait.until(textToBe(By.id("stored-hello-counters"), "1"));

        // The like toggle: liked, and one visitor likes the article.
        browser.findElement(By.id("toggle-like-hello-counters")).click();
        wait.until(textToBe(By.id("toggle-like-hello-counters"), "♥ Liked"));
        wait.until(textToBe(By.id("liked-by-hello-counters"), "1"));

        // A durable like answers once it is in the database.
        browser.findElement(By.id("like-durable-one-hot-row")).click();
        wait.until(textToBePresentInElementLocated(By.id("notice"), "Durable like answered"));
        wait.until(textToBe(By.id("stored-one-hot-row"), "1"));
        assertThat(Long.parseLong(browser.findElement(By.id("flushes")).getText()))
                .isPositive();

        // A declined payment rolls back its count and its invoice number; the next payment takes that number.
        browser.findElement(By.id("pay-declined")).click();
        wait.until(textToBePresentInElementLocated(By.id("status"), "rolled back"));
        assertThat(browser.findElement(By.id("paid-orders")).getText()).isEqualTo("0");
        browser.findElement(By.id("pay")).click();
        wait.until(textToBe(By.id("invoices"), "#1"));
        wait.until(textToBe(By.id("paid-orders"), "1"));

        // An order gets its number from the block sequence.
        browser.findElement(By.id("place-order")).click();
        wait.until(textToBe(By.id("last-order-number"), "#1"));
        wait.until(textToBe(By.id("order-count"), "1"));

        // The flash sale, as a buyer sees it (the other test may have sold some first).
        wait.until(driver -> !driver.findElement(By.id("stock-left")).getText().equals("0"));
        long left = Long.parseLong(browser.findElement(By.id("stock-left")).getText());
        long sold = Long.parseLong(browser.findElement(By.id("stock-sold")).getText());
        browser.findElement(By.id("buy")).click();
        wait.until(textToBe(By.id("stock-held"), "1"));
        wait.until(textToBe(By.id("stock-left"), String.valueOf(left - 1)));
        wait.until(textToBePresentInElementLocated(By.id("hold-timer"), "left to pay"));
        browser.findElement(By.id("pay-hold")).click();
        wait.until(textToBe(By.id("stock-sold"), String.valueOf(sold + 1)));
        wait.until(textToBe(By.id("stock-held"), "0"));

        Path screenshot = Path.of("target", "example-page.png");
        Files.write(screenshot, browser.getScreenshotAs(OutputType.BYTES));
        assertThat(Files.size(screenshot)).isPositive();
    }

    /** Five likes a minute per visitor: the sixth is refused, the page says when to like again, and nothing counts. */
    @Test
    void theSixthLikeInAMinuteIsRefusedAndThePageSaysWhenToLikeAgain() {
        // Its own article: the other test likes others, from another browser (another visitor).
        wait.until(textToBe(By.id("likes-write-behind"), "0"));
        for (int i = 1; i <= 5; i++) {
            browser.findElement(By.id("like-write-behind")).click();
            wait.until(textToBe(By.id("likes-write-behind"), String.valueOf(i)));
        }
        wait.until(textToBe(By.id("like-limit"), "0 more likes now (5 a minute)"));

        browser.findElement(By.id("like-write-behind")).click();
        wait.until(textToBePresentInElementLocated(By.id("like-limit"), "Slow down: you can like again in "));
        assertThat(browser.findElement(By.id("like-limit")).getText())
                .matches("Slow down: you can like again in \\d+ s");
        assertThat(browser.findElement(By.id("like-write-behind")).isEnabled()).isFalse();
        assertThat(browser.findElement(By.id("like-durable-hello-counters")).isEnabled())
                .isFalse();
        // The refused like was not counted: the next poll of the stats still says 5, in memory and in the database.
        wait.until(textToBe(By.id("stored-write-behind"), "5"));
        assertThat(browser.findElement(By.id("likes-write-behind")).getText()).isEqualTo("5");
        assertThat(counters.get("likes.write-behind")).isEqualTo(5);
    }

    /**
     * The like toggle, clicked ten times at once: an even number, so the article is not liked, as before, and the page
     * shows the count the database holds; three more clicks, one by one, and it is.
     */
    @Test
    void tenFastClicksOfTheLikeToggleLeaveItAsItWasWithTheStoredCount() {
        // Its own article: the other tests toggle, or like, others.
        MembershipCounter likedBy = counters.members(new ArticleId("write-behind").likedByCounter());
        likedBy.add("another-visitor");
        String visitor = (String) browser.executeScript("return localStorage.getItem('visitor')");
        By toggle = By.id("toggle-like-write-behind");
        wait.until(textToBe(By.id("liked-by-write-behind"), "1"));
        assertThat(browser.findElement(toggle).getText()).isEqualTo("♡ Like");

        clickAtOnce(toggle, 10);
        assertShowsWhatIsStored(toggle, likedBy, visitor, false);
        assertThat(likedBy.count()).as("another visitor's like").isEqualTo(1);

        for (int i = 0; i < 3; i++) {
            browser.findElement(toggle).click();
        }
        assertShowsWhatIsStored(toggle, likedBy, visitor, true);
        assertThat(likedBy.count()).isEqualTo(2);

        // Read again from the database by a fresh page, the visitor's like is there.
        browser.navigate().refresh();
        wait.until(textToBe(toggle, "♥ Liked"));
        wait.until(textToBe(By.id("liked-by-write-behind"), "2"));
    }

    /**
     * Clicks the element {@code times} in one script, faster than any visitor: every click after the first comes while
     * the request of the first is on its way.
     */
    private void clickAtOnce(By element, int times) {
        browser.executeScript(
                "for (let i = 0; i < arguments[1]; i++) arguments[0].click();", browser.findElement(element), times);
    }

    /** Once the page's requests are answered, it shows the visitor's stored like and the stored count. */
    private void assertShowsWhatIsStored(By toggle, MembershipCounter likedBy, String visitor, boolean liked) {
        wait.until(driver -> "true".equals(driver.findElement(toggle).getDomAttribute("data-settled")));
        assertThat(likedBy.contains(visitor)).as("stored").isEqualTo(liked);
        assertThat(browser.findElement(toggle).getText()).isEqualTo(liked ? "♥ Liked" : "♡ Like");
        assertThat(browser.findElement(toggle).getDomAttribute("aria-pressed")).isEqualTo(String.valueOf(liked));
        assertThat(browser.findElement(By.id("liked-by-write-behind")).getText())
                .isEqualTo(String.valueOf(likedBy.count()));
    }

    /** A unit held while the buyer pays: cancelled, left to expire, and the last one sold. */
    @Test
    void theFlashSaleHoldsAUnitWhileTheBuyerPaysAndNeverSellsBelowZero() {
        wait.until(driver -> !driver.findElement(By.id("stock-left")).getText().equals("0"));
        long left = Long.parseLong(browser.findElement(By.id("stock-left")).getText());

        // Cancelled: the unit is for sale again.
        browser.findElement(By.id("buy")).click();
        wait.until(textToBe(By.id("stock-held"), "1"));
        assertThat(browser.findElement(By.id("buy")).isEnabled())
                .as("one hold at a time")
                .isFalse();
        browser.findElement(By.id("cancel-hold")).click();
        wait.until(textToBe(By.id("stock-held"), "0"));
        wait.until(textToBe(By.id("stock-left"), String.valueOf(left)));

        // Left alone past its 3 s: it expires and goes back by itself (swept every second here).
        browser.findElement(By.id("buy")).click();
        wait.until(textToBe(By.id("stock-left"), String.valueOf(left - 1)));
        wait.until(textToBePresentInElementLocated(By.id("hold-timer"), "expired"));
        wait.until(textToBe(By.id("stock-held"), "0"));
        wait.until(textToBe(By.id("stock-left"), String.valueOf(left)));

        // Others buy all but one; this buyer takes the last, and the page says sold out, never a negative stock.
        BoundedCounter stock = counters.bounded(FlashSaleController.STOCK);
        for (long i = 1; i < left; i++) {
            assertThat(stock.tryIncrement(-1)).isTrue();
        }
        wait.until(textToBe(By.id("stock-left"), "1"));
        browser.findElement(By.id("buy")).click();
        wait.until(textToBe(By.id("stock-left"), "0"));
        browser.findElement(By.id("pay-hold")).click();
        wait.until(textToBe(By.id("buy"), "Sold out"));
        assertThat(browser.findElement(By.id("buy")).isEnabled()).isFalse();
        assertThat(stock.tryIncrement(-1)).as("one more sale is refused").isFalse();
        assertThat(browser.findElement(By.id("stock-left")).getText()).isEqualTo("0");

        browser.findElement(By.id("restock")).click();
        wait.until(textToBe(By.id("stock-left"), "10"));
        wait.until(textToBe(By.id("buy"), "Buy"));
    }
}
