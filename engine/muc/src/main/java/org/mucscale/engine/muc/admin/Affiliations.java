package org.mucscale.engine.muc.admin;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.mucscale.engine.muc.Affiliation;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The affiliation lists of one request, checked as a whole before anything runs (valid bare JIDs, no JID in two
 * lists, owners not emptied), and turned into muc#admin items the room applies as an owner's (XEP-0045 10.3-10.7):
 * additions first, removals after, so the room never passes through having no owner. Immutable.
 */
final class Affiliations {
    final List<Jid> owners;
    final List<Jid> admins;
    final List<Jid> members;
    final List<Jid> outcasts;

    private Affiliations(List<Jid> owners, List<Jid> admins, List<Jid> members, List<Jid> outcasts) {
        this.owners = owners;
        this.admins = admins;
        this.members = members;
        this.outcasts = outcasts;
    }

    static Affiliations check(RoomSettings s) {
        Map<Jid, String> seen = new HashMap<>();
        Affiliations a = new Affiliations(parse(s.owners, "owners", seen), parse(s.admins, "admins", seen),
                parse(s.members, "members", seen), parse(s.outcasts, "outcasts", seen));
        if (a.owners != null && a.owners.isEmpty()) {
            throw new AdminException(AdminException.Problem.CONFLICT, "owners: a room needs at least one owner");
        }
        return a;
    }

    private static List<Jid> parse(List<String> texts, String list, Map<Jid, String> seen) {
        if (texts == null) {
            return null;
        }
        List<Jid> out = new ArrayList<>(texts.size());
        for (String t : texts) {
            Jid j = RoomAdmin.bareJid(t, list);
            String other = seen.putIfAbsent(j, list);
            if (other != null && !other.equals(list)) {
                throw new AdminException(AdminException.Problem.CONFLICT,
                        j + " is in both " + other + " and " + list + "; a JID has one affiliation");
            }
            if (!out.contains(j)) {
                out.add(j);
            }
        }
        return out;
    }

    /** The items that turn {@code current} into these lists (lists not given stay as they are). */
    List<XmlElement> changes(Jid room, Map<Jid, Affiliation> current) {
        Map<Jid, Affiliation> wanted = new HashMap<>();
        put(wanted, owners, Affiliation.OWNER);
        put(wanted, admins, Affiliation.ADMIN);
        put(wanted, members, Affiliation.MEMBER);
        put(wanted, outcasts, Affiliation.OUTCAST);
        List<XmlElement> out = new ArrayList<>();
        out.addAll(items(room, owners, Affiliation.OWNER, current));
        out.addAll(items(room, admins, Affiliation.ADMIN, current));
        out.addAll(items(room, members, Affiliation.MEMBER, current));
        out.addAll(items(room, outcasts, Affiliation.OUTCAST, current));
        List<Jid> removed = new ArrayList<>();
        current.forEach((jid, aff) -> {
            if (given(aff) && !wanted.containsKey(jid)) {
                removed.add(jid);
            }
        });
        removed.sort(java.util.Comparator.comparing(Jid::toString));
        for (Jid j : removed) {
            out.add(item(room, j, Affiliation.NONE));
        }
        return out;
    }

    private boolean given(Affiliation aff) {
        return switch (aff) {
            case OWNER -> owners != null;
            case ADMIN -> admins != null;
            case MEMBER -> members != null;
            case OUTCAST -> outcasts != null;
            default -> false;
        };
    }

    private static void put(Map<Jid, Affiliation> m, List<Jid> jids, Affiliation aff) {
        if (jids != null) {
            for (Jid j : jids) {
                m.put(j, aff);
            }
        }
    }

    /** One item per JID of {@code jids} that does not have {@code aff} in {@code current} yet. */
    static List<XmlElement> items(Jid room, List<Jid> jids, Affiliation aff, Map<Jid, Affiliation> current) {
        List<XmlElement> out = new ArrayList<>();
        if (jids != null) {
            for (Jid j : jids) {
                if (current.get(j) != aff) {
                    out.add(item(room, j, aff));
                }
            }
        }
        return out;
    }

    private static XmlElement item(Jid room, Jid jid, Affiliation aff) {
        return XmlElement.builder("iq").attribute("type", "set").attribute("to", room.toString())
                .child(XmlElement.builder("query", RoomAdmin.NS_ADMIN).child(XmlElement.builder("item")
                        .attribute("jid", jid.toString()).attribute("affiliation", aff.xmlName()).build()).build())
                .build();
    }
}
