-- What the manifest says the run is: provider, model, dataset, designs, repetitions, budgets, and
-- what the model was given (instructions, tools per design), with the cases as JSON, and how the
-- requests were shaped (openai-chat's answer format and tool choice; null for other providers), the
-- baseline every other design is compared with (the first design when the manifest names none) and
-- where each design's server came from (design_sources, JSON; null in runs recorded before), and the
-- pricing vendor the provider recorded (null when it has none, or in runs recorded before the field);
-- whether tool calls were read from the model's text (--text-tool-calls) and the user's own
-- instructions file and hash (--instructions; null for wismo's default).
SELECT run_id, schema_version, provider.name AS provider, provider.label AS provider_label,
       provider.pricingVendor AS pricing_vendor,
       coalesce(provider.isLanguageModel, false) AS is_language_model, model, base_url, token_counts,
       dataset.name AS dataset_name, dataset.hash AS dataset_hash, dataset.clock AS clock, designs,
       repetitions, instructions, tools, to_json(cases) AS cases, started_at, finished_at, budgets,
       to_json(structured_output) AS structured_output, tool_choice, baseline, design_sources,
       text_tool_calls, to_json(user_instructions) AS user_instructions
FROM run_manifest;
