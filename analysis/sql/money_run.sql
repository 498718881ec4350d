-- A run's money as a whole: whether any conversation's tokens were estimated, and the first and last
-- day of the responses of the conversations that have a price (the days their prices applied to).
-- Needs money_costs.sql.
SELECT coalesce(bool_or(estimated), false) AS estimated,
       min(first_day) FILTER (WHERE usd IS NOT NULL) AS first_day,
       max(last_day) FILTER (WHERE usd IS NOT NULL) AS last_day
FROM conversation_costs;
