-- Claimed counters (conversation_finished.claimed) that differ from the events: turns = number of
-- model_response events, toolCalls = number of tool_call events, input/output/cached/reasoning tokens = sums
-- of the per-response usage (null when no response reported any), and elapsedMs = the time between
-- the conversation_started and conversation_finished timestamps, to the microsecond: the recorder
-- stamps both lines with the very clock readings it computes elapsedMs from (claimed.elapsedExact),
-- so no load on the machine can make them differ and any edit of either shows. Runs recorded before
-- that (elapsedExact absent) took the two from different clocks and are held within 5 ms + 1 %.
-- A conversation stopped by its deadline still has a model_response for its cancelled request (the
-- recorder writes one with a timeout error), so no exception is made for it.
-- The claimed lookups (per backend and not found) are the sums of the tool_result lines' lookups;
-- they are compared only where claimed (runs recorded before the servers reported them claim none).
WITH counters AS (
    SELECT conversation_id, attempt, coalesce(claimed.elapsedExact, false) AS exact,
           unnest([
               {'counter': 'turns', 'claimed': claimed.turns::DOUBLE, 'recomputed': responses::DOUBLE},
               {'counter': 'toolCalls', 'claimed': claimed.toolCalls::DOUBLE, 'recomputed': calls::DOUBLE},
               {'counter': 'inputTokens', 'claimed': claimed.inputTokens::DOUBLE,
                'recomputed': input_tokens::DOUBLE},
               {'counter': 'outputTokens', 'claimed': claimed.outputTokens::DOUBLE,
                'recomputed': output_tokens::DOUBLE},
               {'counter': 'cachedTokens', 'claimed': claimed.cachedTokens::DOUBLE,
                'recomputed': cached_tokens::DOUBLE},
               {'counter': 'reasoningTokens', 'claimed': claimed.reasoningTokens::DOUBLE,
                'recomputed': reasoning_tokens::DOUBLE},
               {'counter': 'lookups.orders', 'claimed': claimed.lookups.orders::DOUBLE,
                'recomputed': CASE WHEN claimed.lookups IS NOT NULL THEN coalesce(lookups_orders, 0) END},
               {'counter': 'lookups.payments', 'claimed': claimed.lookups.payments::DOUBLE,
                'recomputed': CASE WHEN claimed.lookups IS NOT NULL THEN coalesce(lookups_payments, 0) END},
               {'counter': 'lookups.reservations', 'claimed': claimed.lookups.reservations::DOUBLE,
                'recomputed': CASE WHEN claimed.lookups IS NOT NULL THEN coalesce(lookups_reservations, 0) END},
               {'counter': 'lookups.tracking', 'claimed': claimed.lookups.tracking::DOUBLE,
                'recomputed': CASE WHEN claimed.lookups IS NOT NULL THEN coalesce(lookups_tracking, 0) END},
               {'counter': 'lookups.notFound', 'claimed': claimed.lookups.notFound::DOUBLE,
                'recomputed': CASE WHEN claimed.lookups IS NOT NULL THEN coalesce(lookups_not_found, 0) END},
               {'counter': 'elapsedMs', 'claimed': claimed.elapsedMs,
                'recomputed': (epoch_us(finished_at) - epoch_us(started_at)) / 1000.0}
           ], recursive := true)
    FROM attempt_totals
    WHERE finished_lines > 0
)
SELECT conversation_id, attempt, counter, claimed, recomputed
FROM counters
WHERE CASE counter
          WHEN 'elapsedMs' THEN recomputed IS NULL OR claimed IS NULL
                                OR abs(claimed - recomputed) > CASE WHEN exact THEN 0.0005
                                                                    ELSE 5 + 0.01 * abs(recomputed) END
          ELSE claimed IS DISTINCT FROM recomputed
      END
ORDER BY conversation_id, attempt, counter;
