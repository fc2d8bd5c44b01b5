package org.mucscale.engine.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The dashboard page and its static files, from the classpath ({@code mucscale-web/dashboard/}, copied from the
 * plugin's {@code src/main/web/dashboard/}). The page uses relative URLs only: {@code dashboard/dashboard.js},
 * {@code dashboard/dashboard.css}, {@code dashboard/vendor/...}, and the data URL from the {@code data-url} attribute of
 * {@code #mucscale-dashboard}; it carries {@code <meta name="pageID" content="mucscale-dashboard">} so Openfire's
 * admin console decorates it when a servlet at {@code /mucscale-dashboard.jsp} writes it.
 */
public final class DashboardPage {

    /** Classpath folder of the static files. */
    public static final String RESOURCE_ROOT = "mucscale-web/dashboard/";
    /** The data URL the page uses by default, relative to the page. */
    public static final String DEFAULT_DATA_URL = "mucscale-dashboard-data";

    private static final String TEMPLATE = load("page.html");

    private DashboardPage() {
    }

    /**
     * The page's HTML with the host's CSRF token in the hidden {@code csrf} input and the data URL in
     * {@code data-url}; both are HTML-attribute escaped.
     */
    public static String html(String csrfToken, String dataUrl) {
        return TEMPLATE.replace("{{csrf}}", Html.escape(csrfToken == null ? "" : csrfToken))
                .replace("{{dataUrl}}", Html.escape(dataUrl == null ? DEFAULT_DATA_URL : dataUrl));
    }

    /**
     * A static file of the dashboard by its path below {@code dashboard/} (e.g. {@code vendor/uPlot.min.css}), or
     * null when there is none. Paths with anything but letters, digits, '.', '-', '_' and '/' or with ".." are refused
     * (null), so nothing outside the folder can be read.
     */
    public static InputStream staticFile(String path) {
        if (!isSafePath(path) || path.equals("page.html")) {
            return null;
        }
        return DashboardPage.class.getClassLoader().getResourceAsStream(RESOURCE_ROOT + path);
    }

    /** The content type for a static file name. */
    public static String contentType(String path) {
        String p = path.toLowerCase(Locale.ROOT);
        if (p.endsWith(".js")) {
            return "text/javascript; charset=utf-8";
        }
        if (p.endsWith(".css")) {
            return "text/css; charset=utf-8";
        }
        if (p.endsWith(".html")) {
            return "text/html; charset=utf-8";
        }
        if (p.endsWith(".svg")) {
            return "image/svg+xml";
        }
        if (p.endsWith(".png")) {
            return "image/png";
        }
        return "text/plain; charset=utf-8";
    }

    static boolean isSafePath(String path) {
        if (path == null || path.isEmpty() || path.length() > 200 || path.startsWith("/") || path.contains("..")) {
            return false;
        }
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '-' || c == '_' || c == '/';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static String load(String name) {
        try (InputStream in = DashboardPage.class.getClassLoader().getResourceAsStream(RESOURCE_ROOT + name)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE_ROOT + name + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
