-- The prices a run needs: each distinct model a response is priced as, how it is looked up (by_name:
-- by its name alone, for --price-as) and the UTC day of the response (NULL: a time that does not read
-- as one). analysis/price_table.py resolves each into money_prices. Needs money_turns.sql.
SELECT DISTINCT asked, by_name, day
FROM money_turns
WHERE needs_price
ORDER BY asked, by_name, day;
