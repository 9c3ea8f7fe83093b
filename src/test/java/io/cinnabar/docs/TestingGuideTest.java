package io.cinnabar.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every Java example in docs/testing.md is preceded by {@code <!-- example: path -->} and must
 * appear in that test source (indentation aside): the examples are compiled and run as tests.
 */
class TestingGuideTest {
    private static final Path GUIDE = Path.of("docs/testing.md");
    private static final Pattern EXAMPLE = Pattern.compile("<!-- example: (\\S+) -->\\n```java\\n(.*?)```", Pattern.DOTALL);

    @Test
    void everyExampleIsInTheTestItNames() throws IOException {
        String guide = Files.readString(GUIDE);
        Matcher m = EXAMPLE.matcher(guide);
        List<String> checked = new ArrayList<>();
        while (m.find()) {
            Path source = Path.of(m.group(1));
            assertTrue(Files.exists(source), "docs/testing.md names a missing file: " + source);
            String example = normalized(m.group(2));
            assertTrue(normalized(Files.readString(source)).contains(example),
                    "docs/testing.md's example from " + source + " is no longer in it:\n" + m.group(2));
            checked.add(m.group(1));
        }
        assertTrue(!checked.isEmpty(), "no example found in docs/testing.md");
        assertEquals(count(guide, "```java"), checked.size(), "a ```java block without <!-- example: path -->");
    }

    private static String normalized(String code) {
        return code.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.joining("\n"));
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) n++;
        return n;
    }
}
