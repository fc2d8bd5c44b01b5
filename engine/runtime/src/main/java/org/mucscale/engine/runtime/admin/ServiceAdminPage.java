package org.mucscale.engine.runtime.admin;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Setting;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.metrics.Html;
import org.mucscale.engine.muc.MucSettings;
import org.mucscale.engine.muc.PresencePolicy;
import org.mucscale.engine.muc.RoomCreationPolicy;

/**
 * The admin console's <em>Service</em> page, host-independent: what a new room gets (the {@code mucscale.muc.default-*}
 * settings and {@code archive-by-default}), who may create rooms ({@code room-creation}, {@code room-creators}) and
 * the service administrators ({@code service-admins}: owners of every room, as Openfire's sysadmins are). It shows
 * and edits those existing settings, nothing of its own: the host {@link Store}s a change where its settings live
 * (inside Openfire its system properties, whose listener reconfigures the engine; standalone the running engine,
 * until restart), so every other way of setting them keeps working and agrees with this page.
 *
 * <p>One plain form, no JavaScript, carrying the host's CSRF token, which the host checks before {@link #act} runs.
 * A change is checked as a whole with each setting's own parser first: one bad value saves nothing. Every save (and
 * refusal) goes to the API's {@link AuditTrail}. Stateless and thread-safe.
 */
public final class ServiceAdminPage {
    static final String PAGE_ID = "mucscale-service";

    /** The settings this page edits, in the order shown; booleans are checkboxes. */
    static final List<Setting<?>> TEMPLATE = List.of(MucSettings.DEFAULT_PUBLIC, MucSettings.DEFAULT_PERSISTENT,
            MucSettings.DEFAULT_MAX_OCCUPANTS, MucSettings.DEFAULT_NON_ANONYMOUS,
            MucSettings.DEFAULT_PARTICIPANTS_CHANGE_SUBJECT, MucSettings.DEFAULT_PRESENCE_POLICY,
            MucSettings.ARCHIVE_BY_DEFAULT);
    static final List<Setting<?>> CREATION = List.of(MucSettings.ROOM_CREATION, MucSettings.ROOM_CREATORS);
    static final List<Setting<?>> ADMINS = List.of(MucSettings.SERVICE_ADMINS);

    /** Where the host keeps settings: saves {@code changed} (key to text, already checked) and applies them. */
    @FunctionalInterface
    public interface Store {
        void save(Map<String, String> changed);
    }

    private ServiceAdminPage() {
    }

    /** The form's field names (the settings' keys), for a host that copies a posted form field by field. */
    public static List<String> fields() {
        List<String> out = new ArrayList<>();
        for (List<Setting<?>> part : List.of(TEMPLATE, CREATION, ADMINS)) {
            for (Setting<?> s : part) {
                out.add(s.key());
            }
        }
        return out;
    }

    public static String page(Settings current, String serviceDomain, String csrf, String notice) {
        StringBuilder sb = new StringBuilder(8192);
        sb.append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>MUC Scale service</title>")
                .append("<meta name=\"pageID\" content=\"").append(PAGE_ID).append("\"></head><body>");
        if (notice != null && !notice.isBlank()) {
            sb.append("<p class=\"notice\" id=\"notice\">").append(Html.escape(notice)).append("</p>");
        }
        sb.append("<h1>Service ").append(Html.escape(serviceDomain)).append("</h1>")
                .append("<form method=\"post\" id=\"service\"><input type=\"hidden\" name=\"csrf\" value=\"")
                .append(Html.escape(csrf == null ? "" : csrf)).append("\">");
        section(sb, "Default room template (what a new room gets)", TEMPLATE, current);
        section(sb, "Who may create rooms", CREATION, current);
        section(sb, "Service administrators (owners of every room; may always create rooms)", ADMINS, current);
        return sb.append("<button type=\"submit\">Save</button></form></body></html>").toString();
    }

    private static void section(StringBuilder sb, String title, List<Setting<?>> settings, Settings current) {
        sb.append("<h2>").append(Html.escape(title)).append("</h2><table class=\"jive-table\">");
        for (Setting<?> s : settings) {
            Object v = current.get(s);
            String name = Html.escape(s.key());
            String input;
            if (v instanceof Boolean b) {
                input = "<input type=\"checkbox\" name=\"" + name + "\" value=\"true\"" + (b ? " checked" : "") + ">";
            } else if (v instanceof Enum<?> e) {
                StringBuilder sel = new StringBuilder("<select name=\"").append(name).append("\">");
                Object[] options = e instanceof RoomCreationPolicy ? RoomCreationPolicy.values()
                        : e instanceof PresencePolicy ? PresencePolicy.values() : new Object[] {e};
                for (Object o : options) {
                    sel.append("<option").append(o == e ? " selected" : "").append('>').append(o).append("</option>");
                }
                input = sel.append("</select>").toString();
            } else if (v instanceof Integer) {
                input = "<input type=\"number\" name=\"" + name + "\" value=\"" + v + "\">";
            } else { // a JID list: one a line here, stored comma-separated
                input = "<textarea name=\"" + name + "\" rows=\"3\" cols=\"50\">"
                        + Html.escape(String.join("\n", jids(String.valueOf(v)))) + "</textarea>";
            }
            sb.append("<tr><td><label>").append(input).append("</label></td><td><code>").append(name)
                    .append("</code><br>").append(Html.escape(s.description())).append("</td></tr>");
        }
        sb.append("</table>");
    }

    /**
     * Applies the posted form: every field of the page (a checkbox left out is false), checked with each setting's
     * parser against {@code current}; only changed settings are given to {@code store}. Returns the notice.
     */
    public static String act(Map<String, String> form, Settings current, Store store, AuditTrail audit, String who,
                             String from) {
        Map<String, String> changed = new LinkedHashMap<>();
        String notice;
        int status = 200;
        try {
            Settings next = current;
            List<Setting<?>> all = new ArrayList<>(TEMPLATE);
            all.addAll(CREATION);
            all.addAll(ADMINS);
            for (Setting<?> s : all) {
                Object now = current.get(s);
                String text = form.get(s.key());
                if (now instanceof Boolean) {
                    text = Boolean.toString("true".equals(text) || "on".equals(text) || "1".equals(text));
                } else if (text == null) {
                    continue; // a field not posted stays as it is
                } else if (now instanceof String) {
                    text = String.join(",", jids(text));
                } else {
                    text = text.trim();
                }
                next = next.withText(s.key(), text); // the setting's own check; throws before anything is saved
                if (!String.valueOf(next.get(s)).equals(String.valueOf(now))) {
                    changed.put(s.key(), text);
                }
            }
            if (changed.isEmpty()) {
                notice = "Nothing changed.";
            } else {
                store.save(changed);
                notice = "Saved: " + String.join(", ", changed.keySet()) + ".";
            }
        } catch (InvalidSettingException e) {
            status = 400;
            changed.clear();
            notice = "Not saved: " + e.getMessage();
        }
        audit.add(new AuditTrail.Entry(Instant.now(), who, from, "PAGE", "service"
                + (changed.isEmpty() ? "" : " " + String.join(",", changed.keySet())), status,
                status >= 400 ? notice : null));
        return notice;
    }

    /** The JIDs of a list typed with commas, spaces or one a line. */
    private static List<String> jids(String text) {
        List<String> out = new ArrayList<>();
        for (String j : text.split("[,\\s]+")) {
            if (!j.isEmpty()) {
                out.add(j);
            }
        }
        return out;
    }
}
