package org.mucscale.openfire;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.mucscale.engine.runtime.ReviewAdmin;

/**
 * The admin console page {@code /plugins/mucscale/mucscale-review.jsp}: the review queue of flagged messages
 * ({@code mucscale.filter.review-queue}), each retracted through its room or dismissed. A servlet on a .jsp path, as
 * the dashboard (Openfire decorates it by its pageID); the page and the actions are the engine's
 * {@link ReviewAdmin}. Behind the admin login; Openfire checks a POST's {@code csrf} parameter before this runs.
 */
public final class ReviewServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        render(request, response, null);
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        MucScaleContext context = MucScaleContext.current();
        if (context == null) {
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "MUC Scale is not running");
            return;
        }
        Map<String, String> form = new HashMap<>();
        for (String name : new String[] {"action", "room", "id", "reason", "term"}) {
            String v = request.getParameter(name);
            if (v != null) {
                form.put(name, v);
            }
        }
        String notice;
        try {
            notice = ReviewAdmin.act(context.engine(), form);
        } catch (IllegalArgumentException e) {
            response.setStatus(HttpServletResponse.SC_BAD_REQUEST);
            notice = e.getMessage();
        } catch (Exception e) {
            response.setStatus(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
            notice = "Not done: " + e.getMessage();
        }
        render(request, response, notice);
    }

    private static void render(HttpServletRequest request, HttpServletResponse response, String notice)
            throws IOException {
        MucScaleContext context = MucScaleContext.current();
        response.setContentType("text/html; charset=utf-8");
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("X-Content-Type-Options", "nosniff");
        Object csrf = request.getAttribute("csrf");
        try {
            response.getWriter().write(ReviewAdmin.page(context == null ? null : context.engine(),
                    csrf == null ? "" : csrf.toString(), notice));
        } catch (Exception e) {
            response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "the review queue could not be read: "
                    + e.getMessage());
        }
    }
}
