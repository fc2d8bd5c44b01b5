package org.mucscale.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One self-contained HTML file (inline CSS, inline JS drawing SVG, the runs' JSON embedded) for one run or a
 * comparison of several. No external resources, so it opens from a file system or a CI artifact.
 */
public final class HtmlReport {
    private HtmlReport() {
    }

    public static void write(List<ObjectNode> runs, Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Files.writeString(file, render(runs), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    static String render(List<ObjectNode> runs) {
        ArrayNode arr = new ObjectMapper().createArrayNode();
        runs.forEach(arr::add);
        // "</" inside a script block would end it early; JSON allows "<\/" for the same text
        String data = arr.toString().replace("</", "<\\/");
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                + "<title>mucscale-loadgen report</title>\n<style>\n" + resource("report.css") + "</style></head>\n"
                + "<body><div id=\"report\"></div>\n<script>window.RUNS = " + data + ";</script>\n<script>\n"
                + resource("report.js") + "</script></body></html>\n";
    }

    private static String resource(String name) {
        try (InputStream in = HtmlReport.class.getResourceAsStream("report/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource report/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
