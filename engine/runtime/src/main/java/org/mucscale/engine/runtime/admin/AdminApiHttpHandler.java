package org.mucscale.engine.runtime.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

/**
 * The standalone HTTP server's side of the {@link AdminApi}: turns an exchange into a request (the body read up to
 * the API's limit and no further) and writes the response. Runs on the HTTP server's threads.
 */
public final class AdminApiHttpHandler implements HttpHandler {
    private final AdminApi api;

    public AdminApiHttpHandler(AdminApi api) {
        this.api = api;
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        AdminApi.Body body;
        try (InputStream in = ex.getRequestBody()) {
            body = AdminApi.readBody(in, ex.getRequestHeaders().getFirst("Content-Length"), api.maxBodyBytes());
        }
        boolean tooLarge = body.tooLarge();
        AdminApi.Response res = api.handle(new AdminApi.Request(ex.getRequestMethod(), ex.getRequestURI().getRawPath(),
                ex.getRequestURI().getRawQuery(), ex.getRequestHeaders().getFirst("Authorization"),
                ex.getRequestHeaders().getFirst("Content-Type"), ex.getRemoteAddress().getAddress(), body.bytes(),
                tooLarge, null, ex.getRequestHeaders().getFirst("Accept")));
        byte[] out = res.body().getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", res.contentType());
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        for (Map.Entry<String, String> h : res.headers().entrySet()) {
            ex.getResponseHeaders().set(h.getKey(), h.getValue());
        }
        if (tooLarge) {
            ex.getResponseHeaders().set("Connection", "close");
        }
        ex.sendResponseHeaders(res.status(), out.length == 0 ? -1 : out.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(out);
        }
    }
}
