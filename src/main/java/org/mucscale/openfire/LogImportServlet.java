package org.mucscale.openfire;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.jivesoftware.openfire.XMPPServer;
import org.mucscale.engine.metrics.Html;
import org.mucscale.engine.store.DatabaseType;
import org.mucscale.engine.store.OpenfireLogImport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin console page {@code /plugins/mucscale/mucscale-import.jsp}: imports rooms' logs from Openfire's own
 * MUC ({@code ofMucConversationLog}) into mucscale's room log, in Openfire's database, so a room moved to mucscale
 * keeps its archive (docs/migrating.md). GET shows the form and the running or last import; POST (Openfire checks its
 * {@code csrf} parameter) starts one import on a thread of its own and redirects back. One import at a time; the
 * thread is interrupted when the plugin unloads (the importer stops between committed pages; re-running continues).
 */
public final class LogImportServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(LogImportServlet.class);
    private static final int PROGRESS_LINES = 200;

    /** The running or last import; guarded by this servlet. */
    private transient Job job;
    /** Why the last POST started nothing, shown once (kept here, not in the URL, so no link can put text here). */
    private transient String refusal;

    private static final class Job {
        final Deque<String> progress = new ArrayDeque<>();
        final String request;
        Thread thread;
        OpenfireLogImport.Report report;
        String failure;

        Job(String request) {
            this.request = request;
        }

        synchronized void line(String line) {
            if (progress.size() == PROGRESS_LINES) {
                progress.removeFirst();
            }
            progress.addLast(line);
        }

        synchronized List<String> lines() {
            return new ArrayList<>(progress);
        }
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        noStore(response);
        Object csrf = request.getAttribute("csrf");
        Job current;
        boolean running;
        String error;
        synchronized (this) {
            current = job;
            running = current != null && current.thread.isAlive();
            error = refusal;
            refusal = null;
        }
        StringBuilder html = new StringBuilder(4096).append("""
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"/><title>MUC Scale: import Openfire MUC logs</title>
                <meta name="pageID" content="mucscale-import"/>""");
        if (running) {
            html.append("<meta http-equiv=\"refresh\" content=\"3\"/>");
        }
        html.append("</head><body>\n<p>Copies the conversation log of rooms of Openfire's own MUC service into MUC"
                + " Scale's room log, so a room moved to MUC Scale keeps its archive. Openfire's tables are only read."
                + " Running it again is safe: messages already imported are recognised and not inserted twice."
                + " See docs/migrating.md.</p>\n");
        if (error != null) {
            html.append("<p class=\"jive-error-text\" role=\"alert\">").append(Html.escape(error)).append("</p>\n");
        }
        html.append("<form method=\"post\" action=\"mucscale-import.jsp\">")
                .append("<input type=\"hidden\" name=\"csrf\" value=\"")
                .append(Html.escape(csrf == null ? "" : csrf.toString()))
                .append("\"/><table class=\"jive-table\">")
                .append(row("from-service", "Openfire MUC service (subdomain)", "conference"))
                .append(row("to-service", "MUC Scale subdomain", defaultSubdomain()))
                .append(row("rooms", "Rooms (space separated; name or name=new@room.jid; empty: all)", ""))
                .append("</table><p><button type=\"submit\"").append(running ? " disabled" : "")
                .append(">Import</button> into the rooms of ").append(Html.escape(domain())).append("</p></form>\n");
        if (current != null) {
            OpenfireLogImport.Report report;
            String failure;
            synchronized (current) {
                report = current.report;
                failure = current.failure;
            }
            html.append("<h3>").append(running ? "Import running" : "Last import").append(": ")
                    .append(Html.escape(current.request)).append("</h3>\n");
            if (report != null) {
                html.append("<p id=\"mucscale-import-result\">").append(Html.escape(report.toString())).append("</p>\n");
                if (!report.problems().isEmpty()) {
                    html.append("<p>Skipped or changed rows:</p><pre>");
                    report.problems().forEach(p -> html.append(Html.escape(p.toString())).append('\n'));
                    if (report.problemsNotListed() > 0) {
                        html.append("... and ").append(report.problemsNotListed()).append(" more\n");
                    }
                    html.append("</pre>\n");
                }
            }
            if (failure != null) {
                html.append("<p class=\"jive-error-text\" id=\"mucscale-import-failure\">")
                        .append(Html.escape(failure)).append("</p>\n");
            }
            html.append("<pre id=\"mucscale-import-progress\">");
            current.lines().forEach(l -> html.append(Html.escape(l)).append('\n'));
            html.append("</pre>\n");
        }
        html.append("</body></html>\n");
        response.setContentType("text/html; charset=utf-8");
        response.getWriter().write(html.toString());
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        noStore(response);
        String fromService = request.getParameter("from-service");
        String toService = request.getParameter("to-service");
        String rooms = request.getParameter("rooms");
        OpenfireLogImport.Options options = new OpenfireLogImport.Options();
        DatabaseType type;
        try {
            options.domain(domain()).fromService(blankToDefault(fromService, "conference"))
                    .toService(blankToDefault(toService, defaultSubdomain()));
            if (rooms != null) {
                for (String room : rooms.trim().split("[\\s,]+")) {
                    if (room.isEmpty()) {
                        continue;
                    }
                    int eq = room.indexOf('=');
                    if (eq < 0) {
                        options.room(room);
                    } else {
                        options.room(room.substring(0, eq), room.substring(eq + 1));
                    }
                }
            }
            type = OpenfireDataSource.databaseType();
        } catch (IllegalArgumentException e) {
            refuse(response, e.getMessage());
            return;
        }
        String description = "from " + blankToDefault(fromService, "conference") + " to "
                + blankToDefault(toService, defaultSubdomain()) + ", rooms: "
                + (rooms == null || rooms.isBlank() ? "all" : rooms.trim());
        synchronized (this) {
            if (job != null && job.thread.isAlive()) {
                refusal = "an import is running; wait for it to finish";
                redirect(response);
                return;
            }
            Job next = new Job(description);
            OpenfireDataSource database = new OpenfireDataSource();
            OpenfireLogImport importer = new OpenfireLogImport(database, database, type, options, line -> {
                next.line(line);
                LOG.info("mucscale import: {}", line);
            });
            next.thread = new Thread(() -> run(next, importer), "mucscale-openfire-log-import");
            next.thread.setDaemon(true);
            job = next;
            next.thread.start();
        }
        redirect(response);
    }

    private static void run(Job job, OpenfireLogImport importer) {
        try {
            OpenfireLogImport.Report report = importer.run();
            synchronized (job) {
                job.report = report;
            }
        } catch (Exception e) {
            LOG.warn("mucscale import of Openfire MUC logs failed (run it again to continue): {}", e.toString());
            synchronized (job) {
                job.failure = (e instanceof IllegalArgumentException ? "" : "database failure; run it again to"
                        + " continue: ") + e.getMessage();
            }
        }
    }

    /** The plugin unloads: the import stops between pages (what it committed stays) and its thread ends. */
    @Override
    public void destroy() {
        Thread thread;
        synchronized (this) {
            thread = job == null ? null : job.thread;
        }
        if (thread != null && thread.isAlive()) {
            thread.interrupt();
            try {
                thread.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (thread.isAlive()) {
                LOG.warn("mucscale import thread did not stop within 30 s of the plugin unloading");
            }
        }
    }

    private static String row(String name, String label, String value) {
        return "<tr><td><label for=\"" + name + "\">" + Html.escape(label) + "</label></td><td><input type=\"text\" id=\""
                + name + "\" name=\"" + name + "\" size=\"50\" value=\"" + Html.escape(value) + "\"/></td></tr>";
    }

    private static String domain() {
        return XMPPServer.getInstance().getServerInfo().getXMPPDomain();
    }

    private static String defaultSubdomain() {
        MucScaleContext context = MucScaleContext.current();
        return context == null ? OpenfireSettings.SUBDOMAIN.defaultValue()
                : context.settings().get(OpenfireSettings.SUBDOMAIN);
    }

    private static String blankToDefault(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    private void refuse(HttpServletResponse response, String why) throws IOException {
        synchronized (this) {
            refusal = why;
        }
        redirect(response);
    }

    private static void redirect(HttpServletResponse response) throws IOException {
        response.sendRedirect("mucscale-import.jsp");
    }

    private static void noStore(HttpServletResponse response) {
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("X-Content-Type-Options", "nosniff");
    }
}
