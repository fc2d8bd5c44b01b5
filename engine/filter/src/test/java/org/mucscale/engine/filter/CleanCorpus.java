package org.mucscale.engine.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A generated clean game-chat corpus (deterministic): lines of 2-12 tokens drawn from the 3,000 most common English
 * words of the shipped lexicon (which excludes swear words), game-chat slang, numbers, scores, times, mentions,
 * URLs, emoticons and punctuation, with random capitalisation and the occasional stretched word ("sooo") or
 * single-letter spelling ("g g"). Source: mucscale's own common/en.txt (see NOTICE.txt) plus the slang below.
 */
final class CleanCorpus {

    private static final String[] SLANG = {"gg", "wp", "glhf", "gl", "hf", "lol", "lmao", "rofl", "brb", "afk", "omg",
            "idk", "imo", "btw", "np", "ty", "thx", "pls", "plz", "nerf", "buff", "op", "noob", "n00b", "pwned", "1v1",
            "2v2", "gank", "mid", "top", "bot", "jungle", "carry", "tank", "heal", "respawn", "lag", "ping", "fps", "xp",
            "lvl", "mmr", "elo", "rekt", "ez", "clutch", "ace", "headshot", "hs", "camping", "rush", "b site", "a site",
            "eco", "gj", "nt", "wtf", "omw", "irl", "ikr", "smh", "tbh", "ngl", "fr", "xd", "XD", ":)", ":(", ":D",
            "<3", "^^", "o/", "\\o/", ":P", ";)", "!!!", "???", "...", "@team", "#1", "5v5", "3rd", "1st", "2nd",
            "GG EZ", "w8", "l8r", "b4", "m8", "gr8", "h8", "2day", "4ever", "sk8", "c u", "u r", "r u", "y u"};

    private static final String[] STRETCHED = {"so", "no", "yes", "please", "what", "hey", "nice", "wow", "lol", "good",
            "yeah", "omg", "ok", "noo", "why", "hi", "oh", "ah", "yay", "ugh", "hmm", "go", "run", "help", "gg", "plz"};

    private CleanCorpus() {
    }

    static List<String> generate(int lines, long seed) {
        List<String> words = ListCompiler.commonWords("en").subList(0, 3000);
        Random r = new Random(seed);
        List<String> out = new ArrayList<>(lines);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            sb.setLength(0);
            int tokens = 2 + r.nextInt(11);
            for (int t = 0; t < tokens; t++) {
                if (t > 0) {
                    sb.append(r.nextInt(20) == 0 ? ", " : " ");
                }
                int kind = r.nextInt(100);
                String w;
                if (kind < 75) {
                    w = words.get((int) Math.min(words.size() - 1, Math.abs(r.nextGaussian()) * 600));
                } else if (kind < 90) {
                    w = SLANG[r.nextInt(SLANG.length)];
                } else if (kind < 94) {
                    w = Integer.toString(r.nextInt(r.nextBoolean() ? 100 : 100_000));
                } else if (kind < 96) {
                    w = r.nextInt(24) + ":" + (10 + r.nextInt(50));
                } else if (kind < 97) {
                    w = "https://example.org/" + words.get(r.nextInt(words.size()));
                } else if (kind < 98) {
                    w = "@" + words.get(r.nextInt(words.size())) + r.nextInt(100);
                } else {
                    // Stretched as people stretch: the last letter of an expressive word ("sooo", "pleaseee").
                    String base = STRETCHED[r.nextInt(STRETCHED.length)];
                    w = base + String.valueOf(base.charAt(base.length() - 1)).repeat(2 + r.nextInt(4));
                }
                int caps = r.nextInt(20);
                if (caps == 0) {
                    w = w.toUpperCase(java.util.Locale.ROOT);
                } else if (caps < 4 && !w.isEmpty()) {
                    w = Character.toUpperCase(w.charAt(0)) + w.substring(1);
                }
                sb.append(w);
            }
            int end = r.nextInt(10);
            sb.append(end == 0 ? "!" : end == 1 ? "?" : end == 2 ? "." : "");
            out.add(sb.toString());
        }
        return out;
    }
}
