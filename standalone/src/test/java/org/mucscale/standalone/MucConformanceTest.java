package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.igniterealtime.smack.inttest.Configuration;
import org.igniterealtime.smack.inttest.FailedTest;
import org.igniterealtime.smack.inttest.SmackIntegrationTestFramework;
import org.igniterealtime.smack.inttest.SmackIntegrationTestFramework.TestRunResult;
import org.igniterealtime.smack.inttest.SuccessfulTest;
import org.igniterealtime.smack.inttest.TestNotPossible;
import org.igniterealtime.smack.inttest.TestResult;
import org.igniterealtime.smack.inttest.XmppConnectionDescriptor;
import org.igniterealtime.smack.inttest.XmppConnectionManager;
import org.jivesoftware.smack.tcp.XMPPTCPConnectionConfiguration;
import org.jivesoftware.smackx.iqregister.AccountManager;
import org.junit.jupiter.api.Test;
import org.mucscale.testkit.SmackQuirks;

/**
 * XEP-0045 conformance: the 56 MUC tests of Smack's Integration Test Framework 4.5.0-beta5
 * ({@code org.jivesoftware.smackx.muc}) against mucscale standalone behind a throwaway Prosody whose own MUC is off,
 * so service discovery finds ours.
 *
 * <p>Two limits of this framework version are worked around here, without touching any test:
 * <ul>
 *   <li>It connects to the service's default port only: a connection descriptor of our own ("mucscale-loopback",
 *       registered through the framework's public {@link XmppConnectionManager#addConnectionDescriptor}) sets host
 *       127.0.0.1 and Prosody's free port, and is made the default and only enabled connection (low-level tests
 *       otherwise run once per registered connection type, each resolving the service by DNS).</li>
 *   <li>It refuses in-band registration over a plain connection: the framework does allow it for a non-required
 *       security mode, but sets {@link AccountManager#sensitiveOperationOverInsecureConnectionDefault} only after it
 *       has created the registration connection's AccountManager. We set the same default first.</li>
 * </ul>
 * Its connections are {@link QuickCloseTcpConnection}s: the framework's teardown (deleting each account, then
 * disconnecting) otherwise waits out the full reply timeout on some of them, for a closing stream tag that a
 * deleted account's session never sends (see there).
 * A report of every test's outcome is written to {@code target/mucscale-conformance.txt}.
 */
class MucConformanceTest {
    static {
        SmackQuirks.disableSmackParserAssertions();
    }

    static final int EXPECTED_TESTS = 56;

    /**
     * Tests seen to fail now and then, each retried up to {@link #MAX_RETRIES} times (never changed). Every one is a race inside the Smack
     * 4.5.0-beta5 client, not a stanza lost by the service: in failing runs Prosody's debug log shows every expected
     * stanza delivered to the client's stream in the right order, and {@link ConformanceIntermittentCausesTest}
     * reproduces each race deterministically (and asserts the service's side of each sequence on the wire). Line
     * numbers are of the 4.5.0-beta5 sources.
     * <ul>
     *   <li>mucLeaveTest (the re-join at test line 1114 gets no answer in 20 s): the listener handling the reflected
     *       leave read the room JID before leave() cleared it, so it calls the synchronized
     *       MultiUserChat.userHasLeft() (MultiUserChat.java:264, 2249) while the synchronized join() (line 715) holds
     *       the monitor waiting for its self-presence; Smack's reader thread waits for that listener
     *       (AbstractXMPPConnection.java:1655), so it never reads the answer until the join times out. Thread dumps
     *       of the stall show exactly these three threads.</li>
     *   <li>mucJoinPresenceInformationTest ("expected 3 but was 2") and mucChangeNicknameInformationTest (a wrong or
     *       missing nick-change presence): MultiUserChat's presence listener wakes the joining thread
     *       (MultiUserChat.java:227-233) before it calls the room's participant listeners (line 311), so join()
     *       returns before the test's listener saw the self-presence, and a listener the test adds just after join()
     *       can still receive that self-presence from the old nickname.</li>
     *   <li>mucMaxUsersLimitJoinRoomTest (timeout at test line 752): the reader thread hands the error presence to
     *       the join's collector (AbstractXMPPConnection.java:1633) before it picks the listeners
     *       (line 1638); the woken joining thread removes the room's listeners at once (MultiUserChat.java:413-416),
     *       so the participant listener the test waits for may never be called.</li>
     * </ul>
     */
    /** Extra runs a KNOWN_INTERMITTENT test gets after failing; it must pass in one of them. */
    static final int MAX_RETRIES = 3;

    static final java.util.Set<String> KNOWN_INTERMITTENT = java.util.Set.of(
            "MultiUserChatOccupantIntegrationTest.mucMaxUsersLimitJoinRoomTest",
            "MultiUserChatOccupantIntegrationTest.mucLeaveTest",
            "MultiUserChatOccupantIntegrationTest.mucJoinPresenceInformationTest",
            "MultiUserChatOccupantIntegrationTest.mucChangeNicknameInformationTest");

    @Test
    void smackIntegrationTests_mucPackage_allPass() throws Exception {
        try (E2eFixture fx = new E2eFixture(0, Map.of(), b -> b.allowRegistration(true).module("private")
                .logLevel(Boolean.getBoolean("mucscale.conformance.debug") ? "debug" : "info")
                .keepDirectory(Boolean.getBoolean("mucscale.conformance.debug")))) {
            int port = fx.prosody.c2sPort();
            XmppConnectionManager.addConnectionDescriptor(XmppConnectionDescriptor
                    .buildWith(QuickCloseTcpConnection.class, XMPPTCPConnectionConfiguration.class,
                            XMPPTCPConnectionConfiguration.Builder.class)
                    .withNickname("mucscale-loopback")
                    .applyExtraConfiguration(b -> b.setHost("127.0.0.1").setPort(port))
                    .build());
            AccountManager.sensitiveOperationOverInsecureConnectionDefault(true);
            TestRunResult result = new SmackIntegrationTestFramework(configuration(null)).run();
            String report = report(result);

            // Retries, only for the tests named in KNOWN_INTERMITTENT (client races, see there); every other failure
            // fails at once. A retry runs the same unchanged test alone; a loaded machine makes the same race likely
            // again in that short run, so a test gets up to MAX_RETRIES more runs and must pass in one of them. The
            // report lists every retry round.
            List<String> retry = new ArrayList<>();
            for (FailedTest t : result.getFailedTests()) {
                String name = t.concreteTest.getMethod().getDeclaringClass().getSimpleName() + "."
                        + t.concreteTest.getMethod().getName();
                if (KNOWN_INTERMITTENT.contains(name)) {
                    retry.add(name);
                }
            }
            int passedOnRetry = 0;
            int otherFailures = result.getFailedTests().size() - retry.size();
            for (int round = 1; round <= MAX_RETRIES && !retry.isEmpty() && otherFailures == 0; round++) {
                TestRunResult again = new SmackIntegrationTestFramework(configuration(String.join(",", retry))).run();
                report += "\nRetry " + round + " of " + MAX_RETRIES + " (" + String.join(", ", retry) + "):\n"
                        + report(again);
                passedOnRetry += again.getSuccessfulTests().size();
                List<String> stillFailing = new ArrayList<>();
                for (FailedTest t : again.getFailedTests()) {
                    stillFailing.add(t.concreteTest.getMethod().getDeclaringClass().getSimpleName() + "."
                            + t.concreteTest.getMethod().getName());
                }
                assertThat(again.getSuccessfulTests().size() + stillFailing.size()).as(report).isEqualTo(retry.size());
                retry = stillFailing;
            }
            Path out = Path.of(System.getProperty("mucscale.conformance.report",
                    "target" + System.getProperty("mucscale.build.suffix", "") + "/mucscale-conformance.txt"));
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, report, StandardCharsets.UTF_8);
            System.out.println(report);
            System.out.println("prosody log: " + fx.prosody.logFile());

            assertThat(retry).as(report).isEmpty();
            assertThat(result.getImpossibleTestClasses()).as(report).isEmpty();
            assertThat(otherFailures).as(report).isZero();
            assertThat(result.getNotPossibleTests()).as(report).isEmpty();
            assertThat(result.getSuccessfulTests().size() + passedOnRetry).as(report).isEqualTo(EXPECTED_TESTS);
        }
    }

    private static Configuration configuration(String onlyTests) throws Exception {
        Configuration.Builder b = Configuration.builder()
                .setService(E2eFixture.DOMAIN)
                .setSecurityMode("disabled")
                .setReplyTimeout("20000") // the framework default is 47 s; 20 s keeps a failing run short but tolerates a busy machine
                .setDefaultConnection("mucscale-loopback")
                .setEnabledConnections("mucscale-loopback")
                .addTestPackage("org.jivesoftware.smackx.muc");
        if (onlyTests != null) {
            b.setEnabledTests(onlyTests);
        }
        return b.build();
    }


    private static String report(TestRunResult r) {
        StringBuilder sb = new StringBuilder();
        sb.append("Smack integration tests (org.jivesoftware.smackx.muc) against mucscale standalone: ")
                .append(r.getSuccessfulTests().size()).append(" passed, ").append(r.getFailedTests().size())
                .append(" failed, ").append(r.getNotPossibleTests().size()).append(" not possible, ")
                .append(r.getImpossibleTestClasses().size()).append(" classes impossible (of ")
                .append(r.getNumberOfAvailableTests()).append(" available)\n");
        List<String> lines = new ArrayList<>();
        for (SuccessfulTest t : r.getSuccessfulTests()) {
            lines.add("PASS " + name(t));
        }
        for (FailedTest t : r.getFailedTests()) {
            lines.add("FAIL " + name(t) + "\n     " + firstLines(t.failureReason));
        }
        for (TestNotPossible t : r.getNotPossibleTests()) {
            lines.add("NOT POSSIBLE " + name(t) + ": " + t.testNotPossibleException.getMessage());
        }
        r.getImpossibleTestClasses().forEach((cls, why) -> lines.add("CLASS IMPOSSIBLE " + cls.getSimpleName() + ": "
                + firstLines(why)));
        lines.sort(null);
        for (String l : lines) {
            sb.append(l).append('\n');
        }
        return sb.toString();
    }

    private static String name(TestResult t) {
        return t.concreteTest.getMethod().getDeclaringClass().getSimpleName() + "." + t.concreteTest.getMethod().getName();
    }

    private static String firstLines(Throwable t) {
        StringWriter sw = new StringWriter();
        t.printStackTrace(new PrintWriter(sw));
        String[] lines = sw.toString().split("\n");
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(4, lines.length); i++) {
            sb.append(lines[i].trim()).append(i < 3 ? " | " : "");
        }
        return sb.toString();
    }
}
