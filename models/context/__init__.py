"""What each teammate is given: context.yaml composition (seed 001), the links to agent
homes, and GSD selective loading (seed 003).
"""
