package io.cinnabar.command.server;

import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.CommandTable;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** arguments.txt (Redis 7.0.15's argument descriptions) fits the command table it documents. */
class DocArgumentsTest {
    private static final Set<String> TYPES = Set.of("string", "integer", "double", "key", "pattern", "unix-time",
            "pure-token", "oneof", "block");

    @Test
    void everyKeyArgumentPointsAtOneOfItsCommandsKeySpecs() {
        List<String> problems = new ArrayList<>();
        int documented = 0;
        for (CommandSpec s : CommandTable.standard().allWithSubcommands()) {
            List<DocArguments.Argument> args = DocArguments.of(s.fullName());
            if (args == null) continue;
            documented++;
            check(s, args, problems);
        }
        assertEquals(List.of(), problems);
        // Redis 7.0.15 describes the arguments of 276 of its commands and subcommands; the rest take none.
        assertEquals(276, documented);
    }

    private static void check(CommandSpec s, List<DocArguments.Argument> args, List<String> problems) {
        for (DocArguments.Argument a : args) {
            if (!TYPES.contains(a.type())) problems.add(s.fullName() + " " + a.name() + ": type " + a.type());
            boolean container = a.type().equals("oneof") || a.type().equals("block");
            if (container == a.arguments().isEmpty()) problems.add(s.fullName() + " " + a.name() + ": nested arguments");
            if (a.type().equals("key") && (a.keySpecIndex() < 0 || a.keySpecIndex() >= s.keySpecs().size())) {
                problems.add(s.fullName() + " " + a.name() + ": key_spec_index " + a.keySpecIndex());
            }
            check(s, a.arguments(), problems);
        }
    }

    @Test
    void argumentsNestAsTheFileIndentsThem() {
        List<DocArguments.Argument> set = DocArguments.of("set");
        assertNotNull(set);
        DocArguments.Argument expiration = set.stream().filter(a -> a.name().equals("expiration")).findFirst().orElseThrow();
        assertEquals("oneof", expiration.type());
        assertEquals(List.of("optional"), expiration.flags());
        assertEquals(List.of("seconds", "milliseconds", "unix-time-seconds", "unix-time-milliseconds", "keepttl"),
                expiration.arguments().stream().map(DocArguments.Argument::name).toList());
        assertEquals("EX", expiration.arguments().get(0).token());
        assertTrue(DocArguments.of("command|count") == null);
    }
}
