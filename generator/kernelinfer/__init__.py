"""kernelinfer"""
